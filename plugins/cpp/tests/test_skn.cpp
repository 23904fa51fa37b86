// test_skn.cpp — skn.hpp against the C library's own outputs and with bad input.
//
//   test_cpp REFERENCE_DIR     (build/adapters: tests/adapters/reference.c wrote it)
//
// Every case of the reference (a procedural rig, SimpleSkin, RiggedSimple,
// Fox) is bound, posed and skinned through the wrapper with every method and
// split, and must give the reference's status and the same bits (the same
// calls, one thread). Then bad input: each must be refused with the right
// status and a message, leaving the outputs untouched. Built twice: with
// exceptions (the throwing calls too) and with -fno-exceptions (try_ only).
#include "skn.hpp"

#include "expect.h"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

static std::string ref;


template <class T>
static std::vector<T> load(const std::string &name) {
  std::ifstream f(ref + "/" + name, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  std::vector<T> v(bytes.size() / sizeof(T));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(T));
  return v;
}

static const char *const kMethods[] = {"LBS_MATRIX", "LBS_QUATERNION", "DQS", "BLEND", "COR"};

// The reference's runs of one case, through Rig::try_skin.
static void compare_runs(const std::string &name, const skn::Rig &rig, const skn::Pose &pose, std::istream &cases) {
  std::string word, rname, method, split, status;
  const size_t v = rig.vertex_count();
  std::vector<float> p(3 * v), n(3 * v), t(4 * v);
  const bool has_n = rig.info().flags & SKN_RIG_HAS_NORMALS, has_t = rig.info().flags & SKN_RIG_HAS_TANGENTS;
  std::streampos at = cases.tellg();
  while (cases >> word && word == "run" && cases >> rname >> method >> split >> status) {
    at = cases.tellg();
    skn::SkinOptions o;
    for (int m = 0; m < 5; ++m)
      if (method == kMethods[m]) o.method = (skn_method)m;
    o.dqs_scale = split == "KEEP_Y" ? SKN_DQS_SCALE_KEEP_Y : SKN_DQS_SCALE_POLAR;
    o.threads = 1;
    skn::SkinOutput out{p, has_n ? skn::Span<float>(n) : skn::Span<float>(),
                        has_t ? skn::Span<float>(t) : skn::Span<float>()};
    skn_status s = rig.try_skin(pose, out, o);
    EXPECT(status == skn_status_name(s), "%s %s %s: %s, reference %s", name.c_str(), method.c_str(), split.c_str(),
           skn_status_name(s), status.c_str());
    if (s) continue;
    const std::string stem = name + "." + method + "." + split + ".";
    EXPECT(load<float>(stem + "positions") == p, "%s positions differ", stem.c_str());
    if (has_n) EXPECT(load<float>(stem + "normals") == n, "%s normals differ", stem.c_str());
    if (has_t) EXPECT(load<float>(stem + "tangents") == t, "%s tangents differ", stem.c_str());
  }
  cases.clear();
  cases.seekg(at);
}

static skn::BindInput procedural_input(const std::string &name, std::vector<std::vector<char>> &keep) {
  auto hold = [&](std::vector<char> bytes) -> const void * {
    keep.push_back(std::move(bytes));
    return keep.back().data();
  };
  auto bytes = [&](const char *ext) { return load<char>(name + "." + ext); };
  skn::BindInput in;
  auto f = [&](const char *ext) {
    std::vector<char> b = bytes(ext);
    size_t n = b.size() / 4;
    return skn::Span<const float>((const float *)hold(std::move(b)), n);
  };
  auto u = [&](const char *ext) {
    std::vector<char> b = bytes(ext);
    size_t n = b.size() / 4;
    return skn::Span<const uint32_t>((const uint32_t *)hold(std::move(b)), n);
  };
  std::vector<char> parents = bytes("parents");
  size_t j = parents.size() / 4;
  in.parents = skn::Span<const int32_t>((const int32_t *)hold(std::move(parents)), j);
  in.bind_matrices = f("bind_matrices");
  in.positions = f("positions");
  in.normals = f("normals");
  in.tangents = f("tangents");
  in.joints = u("joints");
  in.weights = f("weights");
  in.blend_weights = f("blend");
  in.triangles = u("triangles");
  return in;
}

static void reference_cases() {
  std::ifstream cases(ref + "/cases.txt");
  std::string word, name;
  int seen = 0;
  while (cases >> word >> name) {
    skn::Rig rig;
    skn::Pose pose;
    if (word == "proc") {
      unsigned joints, vertices, tris;
      cases >> joints >> vertices >> tris;
      std::vector<std::vector<char>> keep;
      skn::BindInput in = procedural_input(name, keep);
      skn_status s = skn::Rig::try_bind(in, rig);
      EXPECT(s == SKN_OK, "%s: bind: %s", name.c_str(), skn_last_error());
      std::vector<float> local = load<float>(name + ".local");
      std::vector<skn_transform> tr(local.size() / 10);
      static_assert(sizeof(skn_transform) == 40, "skn_transform is 10 floats");
      std::memcpy(tr.data(), local.data(), local.size() * 4);
      EXPECT(rig.try_pose(pose) == SKN_OK && pose.try_set_local(0, tr) == SKN_OK, "%s: pose: %s", name.c_str(),
             skn_last_error());
    } else if (word == "gltf") {
      std::string path;
      unsigned primitive, animation;
      float time;
      cases >> path >> primitive >> animation >> time;
      skn::Gltf doc;
      EXPECT(skn::Gltf::try_open(path.c_str(), doc) == SKN_OK, "%s: open: %s", name.c_str(), skn_last_error());
      skn_gltf_primitive_info pi;
      doc.try_primitive(primitive, pi);
      std::vector<float> blend(pi.vertex_count);
      for (unsigned v = 0; v < pi.vertex_count; ++v) blend[v] = (float)(v % 5) / 4.0f;
      skn::GltfBindOptions o;
      o.primitive = primitive;
      o.centers_of_rotation = true;
      o.blend_weights = blend;
      EXPECT(doc.try_bind(o, rig) == SKN_OK && rig.try_pose(pose) == SKN_OK &&
                 doc.try_pose(primitive, animation, time, pose) == SKN_OK,
             "%s: %s", name.c_str(), skn_last_error());
    }
    compare_runs(name, rig, pose, cases);
    ++seen;
  }
  EXPECT(seen == 4, "%d reference cases, expected 4", seen);
}

// A small valid rig to break one piece at a time: two joints, three vertices.
struct Small {
  float bind[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1};
  int32_t parents[2] = {-1, 0};
  float positions[9] = {0, 0, 0, 0, 1, 0, 0, 2, 0};
  float normals[9] = {1, 0, 0, 1, 0, 0, 1, 0, 0};
  uint32_t joints[6] = {0, 1, 0, 1, 0, 1};
  float weights[6] = {1, 0, 0.5f, 0.5f, 0, 1};
  skn::BindInput input() {
    skn::BindInput in;
    in.bind_matrices = bind;
    in.parents = parents;
    in.positions = positions;
    in.normals = normals;
    in.influences_per_vertex = 2;
    in.joints = joints;
    in.weights = weights;
    return in;
  }
};

static void expect_refused(const skn::BindInput &in, skn_status want, const char *what) {
  skn::Rig rig;
  skn_status s = skn::Rig::try_bind(in, rig);
  EXPECT(s == want && !rig && std::strlen(skn_last_error()) > 0, "%s: %s (%s), expected %s", what,
         skn_status_name(s), skn_last_error(), skn_status_name(want));
}

static void bad_input() {
  Small k;
  skn::BindInput in = k.input();
  in.positions = skn::Span<const float>(k.positions, 8);
  expect_refused(in, SKN_ERR_INVALID_ARGUMENT, "positions not 3 a vertex");
  in = k.input(), in.normals = skn::Span<const float>(k.normals, 6);
  expect_refused(in, SKN_ERR_INVALID_ARGUMENT, "normals of 2 vertices for 3");
  EXPECT(std::strstr(skn_last_error(), "normals: 6 elements, expected 9"), "message: %s", skn_last_error());
  in = k.input(), in.joints = skn::Span<const uint32_t>(k.joints, 5);
  expect_refused(in, SKN_ERR_INVALID_ARGUMENT, "a joint short");
  in = k.input(), in.parents = skn::Span<const int32_t>(k.parents, 1);
  expect_refused(in, SKN_ERR_INVALID_ARGUMENT, "parents of 1 joint for 2");
  in = k.input(), in.bind_matrices = skn::Span<const float>(k.bind, 31);
  expect_refused(in, SKN_ERR_INVALID_ARGUMENT, "a matrix float short");
  in = k.input(), in.inverse_bind_matrices = k.bind;
  expect_refused(in, SKN_ERR_INVALID_ARGUMENT, "both matrix kinds");
  // the library's own checks, through the wrapper
  k.joints[3] = 7;
  expect_refused(k.input(), SKN_ERR_INDEX_OUT_OF_RANGE, "joint 7 of 2");
  EXPECT(std::strstr(skn_last_error(), "joint 7 >= joint_count 2"), "message: %s", skn_last_error());
  k.joints[3] = 1, k.parents[1] = 5;
  expect_refused(k.input(), SKN_ERR_BAD_HIERARCHY, "parent 5 of 2");
  k.parents[1] = 0, k.positions[4] = NAN;
  expect_refused(k.input(), SKN_ERR_NOT_FINITE, "a NaN position");
  k.positions[4] = 1;

  skn::Rig rig;
  skn::Pose pose;
  EXPECT(skn::Rig::try_bind(k.input(), rig) == SKN_OK && rig.try_pose(pose) == SKN_OK, "%s", skn_last_error());
  std::vector<float> out(9, -7.0f), nrm(9, -7.0f), small(8, -7.0f);
  skn::SkinOutput o{small, {}, {}};
  EXPECT(rig.try_skin(pose, o) == SKN_ERR_INVALID_ARGUMENT && small == std::vector<float>(8, -7.0f),
         "a short output: %s", skn_last_error());
  o = {out, skn::Span<float>(nrm.data(), 8), {}};
  EXPECT(rig.try_skin(pose, o) == SKN_ERR_INVALID_ARGUMENT && out == std::vector<float>(9, -7.0f),
         "short normals: %s", skn_last_error());
  skn::SkinOptions range;
  range.first_vertex = 2, range.vertex_count = 2;  // past the end: C's refusal, nothing written
  o = {out, nrm, {}};
  EXPECT(rig.try_skin(pose, o, range) == SKN_ERR_INDEX_OUT_OF_RANGE && out == std::vector<float>(9, -7.0f),
         "a range past the end: %s", skn_last_error());
  range.first_vertex = 1, range.vertex_count = 1;  // a range needs the output only up to its end
  o = {skn::Span<float>(out.data(), 6), {}, {}};
  EXPECT(rig.try_skin(pose, o, range) == SKN_OK && out[3] == 0 && out[4] == 1 && out[8] == -7.0f, "a range: %s",
         skn_last_error());
  o = {out, {}, {}};
  skn::SkinOptions bad;
  bad.method = (skn_method)9;
  EXPECT(rig.try_skin(pose, o, bad) == SKN_ERR_INVALID_ARGUMENT, "method 9: %s", skn_last_error());
  bad.method = SKN_METHOD_COR;  // bound without triangles
  EXPECT(rig.try_skin(pose, o, bad) == SKN_ERR_UNSUPPORTED, "COR without triangles: %s", skn_last_error());
  std::vector<float> palette(31, -7.0f);
  EXPECT(pose.try_palette(SKN_PALETTE_MAT4, palette) == SKN_ERR_INVALID_ARGUMENT &&
             palette == std::vector<float>(31, -7.0f),
         "a palette a float short: %s", skn_last_error());
  skn_transform t[3] = {};
  for (auto &x : t) x.rotation[3] = 1, x.scale[0] = x.scale[1] = x.scale[2] = 1;
  EXPECT(pose.try_set_local(0, t) == SKN_ERR_INDEX_OUT_OF_RANGE, "3 transforms for 2 joints: %s", skn_last_error());
  t[1].rotation[3] = 0;
  EXPECT(pose.try_set_local(0, skn::Span<const skn_transform>(t, 2)) == SKN_ERR_INVALID_ARGUMENT,
         "a zero quaternion: %s", skn_last_error());
  float model[20] = {};
  EXPECT(pose.try_set_model(0, skn::Span<const float>(model, 20)) == SKN_ERR_INVALID_ARGUMENT, "20 floats: %s",
         skn_last_error());

  // handles: a moved-from one is an error; a pose keeps its rig's handle alive
  skn::Rig moved = std::move(rig);
  EXPECT(rig.try_skin(pose, o) == SKN_ERR_INVALID_ARGUMENT, "a moved-from rig: %s", skn_last_error());
  skn::Pose p2 = std::move(pose);
  EXPECT(moved.try_skin(pose, o) == SKN_ERR_INVALID_ARGUMENT, "a moved-from pose: %s", skn_last_error());
  moved = skn::Rig();  // the rig object is gone; p2 still holds the C rig
  skn::Rig again;
  EXPECT(skn::Rig::try_bind(k.input(), again) == SKN_OK, "%s", skn_last_error());
  EXPECT(again.try_skin(p2, o) == SKN_ERR_INVALID_ARGUMENT, "a pose of another rig: %s", skn_last_error());

  skn::Gltf doc;
  EXPECT(skn::Gltf::try_open("/nonexistent.gltf", doc) == SKN_ERR_IO && !doc, "%s", skn_last_error());
  const unsigned char glb[] = {'g', 'l', 'T', 'F', 2, 0, 0, 0, 1, 0, 0, 0, 0xec, 0xff, 0xff, 0xff, 'J', 'S', 'O', 'N', '{'};
  EXPECT(skn::Gltf::try_open_memory(glb, doc) == SKN_ERR_PARSE, "a GLB of length 1: %s", skn_last_error());
  EXPECT(doc.try_bind({}, again) == SKN_ERR_INVALID_ARGUMENT, "an unopened document: %s", skn_last_error());
  EXPECT(skn::Gltf::try_open("data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf", doc) == SKN_OK, "%s",
         skn_last_error());
  skn::GltfBindOptions go;
  float blend[3] = {0, 0, 0};
  go.blend_weights = blend;
  EXPECT(doc.try_bind(go, again) == SKN_ERR_INVALID_ARGUMENT && std::strstr(skn_last_error(), "blend_weights"),
         "blend weights of 3 vertices: %s", skn_last_error());
  uint32_t index = 99;
  EXPECT(doc.try_find_animation("no such", index) == SKN_ERR_INDEX_OUT_OF_RANGE && index == 99, "%s",
         skn_last_error());

#ifdef SKN_HPP_EXCEPTIONS
  try {
    k.joints[3] = 7;
    skn::Rig::bind(k.input());
    EXPECT(false, "no exception");
  } catch (const skn::Error &e) {
    EXPECT(e.status() == SKN_ERR_INDEX_OUT_OF_RANGE &&
               std::string(e.what()) == "SKN_ERR_INDEX_OUT_OF_RANGE: vertex 1, influence 1: joint 7 >= joint_count 2",
           "%s", e.what());
  }
  k.joints[3] = 1;
  skn::Rig r = skn::Rig::bind(k.input());
  skn::Pose ps = r.pose();
  std::vector<float> p(9);
  r.skin(ps, {p, {}, {}}, {});
  EXPECT(p[4] == 1 && p[7] == 2, "rest positions");
  try {
    r.skin(ps, {skn::Span<float>(p.data(), 3), {}, {}}, {});
    EXPECT(false, "no exception");
  } catch (const skn::Error &e) {
    EXPECT(e.status() == SKN_ERR_INVALID_ARGUMENT && std::strstr(e.what(), "positions: 3 floats, the range needs 9"),
           "%s", e.what());
  }
#endif
}

// Morph targets through the wrapper (issue 43: it had none), worked by hand:
// one identity joint, vertices (0,0,0) and (0,1,0); target 0 dense, target 1
// sparse on vertex 1.
static void morph_targets() {
  const float bind[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
  const float positions[6] = {0, 0, 0, 0, 1, 0}, weights[2] = {1, 1};
  const uint32_t joints[2] = {0, 0}, sparse[1] = {1};
  const float dense_dp[6] = {1, 0, 0, 0, 0, 2}, sparse_dp[3] = {0, 4, 0}, defaults[2] = {0.5f, 0};
  skn::MorphTarget targets[2];
  targets[0].positions = dense_dp;
  targets[1].vertices = sparse;
  targets[1].positions = sparse_dp;
  skn::BindInput in;
  in.bind_matrices = bind;
  in.positions = positions;
  in.influences_per_vertex = 1;
  in.joints = joints;
  in.weights = weights;
  in.morph_targets = targets;
  in.morph_weights = defaults;
  skn::Rig rig;
  skn::Pose pose;
  EXPECT(skn::Rig::try_bind(in, rig) == SKN_OK && rig.morph_target_count() == 2 && rig.try_pose(pose) == SKN_OK, "%s",
         skn_last_error());
  float got[2] = {-1, -1}, quarter[1] = {0.25f}, out[6];
  EXPECT(pose.try_morph_weights(0, got) == SKN_OK && got[0] == 0.5f && got[1] == 0, "bind's weights: %s", skn_last_error());
  EXPECT(pose.try_set_morph_weights(1, quarter) == SKN_OK, "%s", skn_last_error());
  EXPECT(rig.try_skin(pose, {out, {}, {}}) == SKN_OK && out[0] == 0.5f && out[1] == 0 && out[2] == 0 && out[3] == 0 &&
             out[4] == 2 && out[5] == 1,
         "morphed: %g %g %g %g %g %g", out[0], out[1], out[2], out[3], out[4], out[5]);
  EXPECT(pose.try_set_morph_weights(1, skn::Span<const float>(defaults, 2)) == SKN_ERR_INDEX_OUT_OF_RANGE, "%s",
         skn_last_error());
  targets[1].positions = skn::Span<const float>(sparse_dp, 2);
  skn::Rig bad;
  EXPECT(skn::Rig::try_bind(in, bad) == SKN_ERR_INVALID_ARGUMENT &&
             std::strstr(skn_last_error(), "morph_targets[1].positions: 2 floats, expected 3 x 1 entries"),
         "a short target: %s", skn_last_error());
  targets[1].positions = sparse_dp;
  in.morph_weights = skn::Span<const float>(defaults, 1);
  EXPECT(skn::Rig::try_bind(in, bad) == SKN_ERR_INVALID_ARGUMENT && std::strstr(skn_last_error(), "morph_weights"),
         "a weight short: %s", skn_last_error());
  in.morph_targets = {};
  EXPECT(skn::Rig::try_bind(in, bad) == SKN_ERR_INVALID_ARGUMENT &&
             std::strstr(skn_last_error(), "without morph_targets"), "weights alone: %s", skn_last_error());
  // the loader's option, through the wrapper: a folder for a document from memory
  std::ifstream f("data/gltf/RiggedSimple/glTF/RiggedSimple.gltf", std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  skn::Span<const unsigned char> bytes((const unsigned char *)text.data(), text.size());
  skn::Gltf doc;
  EXPECT(skn::Gltf::try_open_memory(bytes, doc) == SKN_ERR_IO, "no folder: %s", skn_last_error());
  EXPECT(skn::Gltf::try_open_memory(bytes, doc, "data/gltf/RiggedSimple/glTF") == SKN_OK, "%s", skn_last_error());
}

// Every method's GLSL comes back whole.
static void glsl() {
  skn_gpu_desc d = {};
  d.struct_size = sizeof d;
  d.method = SKN_METHOD_DQS;
  d.joint_count = 2;
  std::string text;
  EXPECT(skn::try_glsl_source(d, text) == SKN_OK && text.find("skn_skin_position") != std::string::npos &&
             text.size() == std::strlen(text.c_str()),
         "%s", skn_last_error());
  d.influences = 5;
  EXPECT(skn::try_glsl_source(d, text) == SKN_ERR_INVALID_ARGUMENT, "5 influences: %s", skn_last_error());
}

int main(int argc, char **argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: test_cpp REFERENCE_DIR\n");
    return 2;
  }
  ref = argv[1];
  reference_cases();
  bad_input();
  morph_targets();
  glsl();
#ifdef SKN_HPP_EXCEPTIONS
  const char *label = "cpp";
#else
  const char *label = "cpp-no-exceptions";
#endif
  std::printf("%s: %d passed, %d failed\n", label, passed, failed);
  return failed != 0;
}
