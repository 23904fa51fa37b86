// skn.hpp — skn for C++17 plugins: RAII handles over the C ABI (abi/skn.h).
//
// Header-only; link libskn as any C library (-lskn). Everything here is the
// C library's, called as abi/skn.h documents it; what the wrapper adds is
// ownership and the checks a C pointer cannot carry:
//   - skn::Rig, skn::Pose and skn::Gltf own their handles, move-only. A pose
//     shares ownership of its rig's handle, so a rig destroyed before its
//     poses is freed with the last of them (the C rule "poses first" cannot
//     be broken from C++). A moved-from handle is empty; using it is an
//     error, not a crash.
//   - Arrays are skn::Span (pointer + count; from a std::vector, std::array,
//     C array, or both by hand). Every count is checked against the counts
//     it goes with before C is called, so a short array is an error naming
//     it, never a read past its end.
//   - Errors: with exceptions, the calls throw skn::Error (its status() and
//     what(): "SKN_ERR_BAD_HIERARCHY: joint 7: parent 12 is out of range").
//     Every call also has a try_ form that returns the skn_status and leaves
//     the message in skn_last_error(), for hosts built with -fno-exceptions,
//     as many DCC plugins are (there the throwing forms are left out).
//   - The first bind or open checks that the loaded libskn has the major
//     version this header was written for (SKN_ERR_UNSUPPORTED otherwise).
#ifndef SKN_HPP
#define SKN_HPP

#include <skn.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__cpp_exceptions) && !defined(SKN_HPP_NO_EXCEPTIONS)
#define SKN_HPP_EXCEPTIONS 1
#include <exception>
#endif

namespace skn {

// A view of count elements at data (std::span's subset; C++17 has none).
template <class T>
class Span {
 public:
  constexpr Span() noexcept = default;
  constexpr Span(T *data, std::size_t count) noexcept : data_(data), count_(count) {}
  template <std::size_t N>
  constexpr Span(T (&a)[N]) noexcept : data_(a), count_(N) {}
  template <class C, class = decltype(std::declval<C &>().data()),
            class = std::enable_if_t<std::is_convertible<decltype(std::declval<C &>().data()), T *>::value>>
  constexpr Span(C &c) noexcept : data_(c.data()), count_(c.size()) {}
  constexpr T *data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return count_; }
  constexpr bool empty() const noexcept { return count_ == 0; }
  constexpr T &operator[](std::size_t i) const noexcept { return data_[i]; }

 private:
  T *data_ = nullptr;
  std::size_t count_ = 0;
};

namespace detail {
// A wrapper's own refusal, reported as the library reports its own.
inline skn_status fail(skn_status s, const char *format, unsigned long long a = 0, unsigned long long b = 0,
                       unsigned long long c = 0) {
  char message[256];
  std::snprintf(message, sizeof message, format, a, b, c);
  return skn_set_error(s, message);
}

// The library must be of this header's major version: checked once.
inline skn_status check_library() {
  static const uint32_t loaded = skn_version();
  if (loaded / 10000 == SKN_VERSION_MAJOR) return SKN_OK;
  return fail(SKN_ERR_UNSUPPORTED, "libskn %llu.x is loaded, but this program was built for skn.h %llu.x",
              loaded / 10000, SKN_VERSION_MAJOR);
}

// An optional array: empty, or exactly `want` elements.
template <class T>
inline skn_status exactly(Span<T> s, std::size_t want, const char *what) {
  if (s.empty() || s.size() == want) return SKN_OK;
  char f[128];
  std::snprintf(f, sizeof f, "%s: %%llu elements, expected %%llu (or none)", what);
  return fail(SKN_ERR_INVALID_ARGUMENT, f, s.size(), want);
}

struct RigDeleter {
  void operator()(skn_rig *r) const noexcept { skn_rig_destroy(r); }
};
}  // namespace detail

#ifdef SKN_HPP_EXCEPTIONS
// A failed call: the status and the library's message.
class Error : public std::exception {
 public:
  explicit Error(skn_status s)
      : status_(s), what_(std::string(skn_status_name(s)) + ": " + skn_last_error()) {}
  skn_status status() const noexcept { return status_; }
  const char *what() const noexcept override { return what_.c_str(); }

 private:
  skn_status status_;
  std::string what_;
};
namespace detail {
inline void check(skn_status s) {
  if (s != SKN_OK) throw Error(s);
}
}  // namespace detail
#endif

// A morph target (skn_morph_target): offsets for the listed vertices, or
// for every vertex (a dense target: vertices empty), 3 floats an entry.
struct MorphTarget {
  Span<const uint32_t> vertices;  // the entries' vertices, or none: one entry a vertex
  Span<const float> positions;    // 3 an entry, required
  Span<const float> normals;      // 3 an entry, or none (needs the rig's normals)
  Span<const float> tangents;     // 3 an entry, or none (needs the rig's tangents)
};

// What skn_bind reads, as arrays with their counts (tightly packed): the
// joint count is bind_matrices' (or inverse_bind_matrices') size / 16, the
// vertex count positions' size / 3.
struct BindInput {
  Span<const float> bind_matrices;          // joint -> model at bind, 16 floats a joint, column-major ...
  Span<const float> inverse_bind_matrices;  // ... or model -> joint (glTF's): exactly one of the two
  Span<const int32_t> parents;              // a joint each (-1: root), or none: all roots
  Span<const skn_transform> rest_local;     // a joint each, or none
  Span<const float> positions;              // 3 a vertex
  Span<const float> normals;                // 3 a vertex, or none
  Span<const float> tangents;               // 4 a vertex, or none
  uint32_t influences_per_vertex = 4;       // k: joints and weights hold k a vertex ...
  Span<const uint32_t> influence_offsets;   // ... or CSR: vertex count + 1 offsets
  Span<const uint32_t> joints;
  Span<const float> weights;
  Span<const float> blend_weights;          // a vertex each, or none (SKN_METHOD_BLEND)
  Span<const uint32_t> triangles;           // 3 a triangle, or none (SKN_METHOD_COR)
  skn_weight_mode weight_mode = SKN_WEIGHTS_NORMALIZE;
  uint32_t max_influences = 0;
  float min_weight = 0.0f;
  skn_bind_layout layout = SKN_LAYOUT_FULL;
  Span<const MorphTarget> morph_targets;    // blend shapes applied before skinning, or none
  Span<const float> morph_weights;          // a new pose's weights, a target each, or none (all 0)
};

// Where skn_skin writes, addressed by absolute vertex index (tightly packed).
struct SkinOutput {
  Span<float> positions;  // 3 a vertex, at least up to the last vertex skinned
  Span<float> normals;    // 3 a vertex, or none
  Span<float> tangents;   // 4 a vertex, or none
};

struct SkinOptions {
  skn_method method = SKN_METHOD_LBS_MATRIX;
  skn_dqs_scale dqs_scale = SKN_DQS_SCALE_POLAR;
  uint32_t first_vertex = 0;
  uint32_t vertex_count = 0;  // 0: to the last vertex
  uint32_t threads = 0;       // 0: the library's default
  skn_stores stores = SKN_STORES_AUTO;
};

class Pose;

class Rig {
 public:
  Rig() = default;
  Rig(Rig &&) noexcept = default;
  Rig &operator=(Rig &&) noexcept = default;
  Rig(const Rig &) = delete;
  Rig &operator=(const Rig &) = delete;
  skn_rig *get() const noexcept { return rig_.get(); }
  explicit operator bool() const noexcept { return rig_ != nullptr; }
  const skn_rig_info &info() const noexcept { return info_; }
  uint32_t joint_count() const noexcept { return info_.joint_count; }
  uint32_t vertex_count() const noexcept { return info_.vertex_count; }

  static skn_status try_bind(const BindInput &in, Rig &out);
  uint32_t morph_target_count() const noexcept { return info_.morph_target_count; }
  // Adopts a rig made by C (skn_bind, skn_gltf_bind).
  static skn_status try_adopt(skn_rig *rig, Rig &out) {
    Rig r;
    r.rig_.reset(rig, detail::RigDeleter());
    r.info_.struct_size = sizeof r.info_;
    if (skn_status s = skn_rig_info_get(rig, &r.info_)) return s;
    out = std::move(r);
    return SKN_OK;
  }
  skn_status try_skin(const Pose &pose, const SkinOutput &out, const SkinOptions &options = {}) const;
  skn_status try_pose(Pose &out) const;
#ifdef SKN_HPP_EXCEPTIONS
  static Rig bind(const BindInput &in) {
    Rig r;
    detail::check(try_bind(in, r));
    return r;
  }
  void skin(const Pose &pose, const SkinOutput &out, const SkinOptions &options = {}) const {
    detail::check(try_skin(pose, out, options));
  }
  Pose pose() const;
#endif

 private:
  friend class Pose;
  static skn_status morph_targets(const BindInput &in, std::size_t v, std::vector<skn_morph_target> &out);
  std::shared_ptr<skn_rig> rig_;  // shared with the rig's poses
  skn_rig_info info_{};
};

class Pose {
 public:
  Pose() = default;
  ~Pose() { skn_pose_destroy(pose_); }
  Pose(Pose &&o) noexcept : pose_(std::exchange(o.pose_, nullptr)), rig_(std::move(o.rig_)) {}
  Pose &operator=(Pose &&o) noexcept {
    if (this != &o) {
      skn_pose_destroy(pose_);
      pose_ = std::exchange(o.pose_, nullptr);
      rig_ = std::move(o.rig_);
    }
    return *this;
  }
  Pose(const Pose &) = delete;
  Pose &operator=(const Pose &) = delete;
  skn_pose *get() const noexcept { return pose_; }
  explicit operator bool() const noexcept { return pose_ != nullptr; }

  // Joints [first, first + local.size()) from parent-relative transforms.
  skn_status try_set_local(uint32_t first, Span<const skn_transform> local) {
    if (skn_status s = usable()) return s;
    return skn_pose_set_local(pose_, first, count(local.size()), local.data());
  }
  // Joints [first, first + m.size() / 16) from joint -> model matrices.
  skn_status try_set_model(uint32_t first, Span<const float> m) {
    if (skn_status s = usable()) return s;
    if (m.size() % 16) return detail::fail(SKN_ERR_INVALID_ARGUMENT, "matrices: %llu floats, not 16 a joint", m.size());
    return skn_pose_set_model(pose_, first, count(m.size() / 16), m.data());
  }
  // The weights of morph targets [first, first + weights.size()).
  skn_status try_set_morph_weights(uint32_t first, Span<const float> weights) {
    if (skn_status s = usable()) return s;
    return skn_pose_set_morph_weights(pose_, first, count(weights.size()), weights.data());
  }
  // Morph targets [first, first + out.size())'s weights into out.
  skn_status try_morph_weights(uint32_t first, Span<float> out) const {
    if (skn_status s = usable()) return s;
    return skn_pose_morph_weights(pose_, first, count(out.size()), out.data());
  }
  // The palette in `format`; dst shorter than the joints' need is refused by C.
  skn_status try_palette(skn_palette_format format, Span<float> dst) const {
    if (skn_status s = usable()) return s;
    return skn_pose_palette(pose_, format, dst.data(), dst.size() * sizeof(float));
  }
  skn_status try_gpu_palette(const skn_gpu_desc &desc, Span<float> dst) const {
    if (skn_status s = usable()) return s;
    return skn_pose_gpu_palette(pose_, &desc, dst.data(), dst.size() * sizeof(float));
  }
#ifdef SKN_HPP_EXCEPTIONS
  void set_local(uint32_t first, Span<const skn_transform> local) { detail::check(try_set_local(first, local)); }
  void set_model(uint32_t first, Span<const float> m) { detail::check(try_set_model(first, m)); }
  void set_morph_weights(uint32_t first, Span<const float> w) { detail::check(try_set_morph_weights(first, w)); }
  void morph_weights(uint32_t first, Span<float> out) const { detail::check(try_morph_weights(first, out)); }
  void palette(skn_palette_format format, Span<float> dst) const { detail::check(try_palette(format, dst)); }
  void gpu_palette(const skn_gpu_desc &desc, Span<float> dst) const { detail::check(try_gpu_palette(desc, dst)); }
#endif

 private:
  friend class Rig;
  skn_status usable() const {
    return pose_ ? SKN_OK : detail::fail(SKN_ERR_INVALID_ARGUMENT, "pose: empty (moved from, or never made)");
  }
  // A count past uint32_t is passed as the largest, which C refuses as out of range.
  static uint32_t count(std::size_t n) { return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n; }
  skn_pose *pose_ = nullptr;
  std::shared_ptr<skn_rig> rig_;
};

inline skn_status Rig::try_bind(const BindInput &in, Rig &out) {
  using detail::exactly;
  using detail::fail;
  if (skn_status s = detail::check_library()) return s;
  if (in.bind_matrices.empty() == in.inverse_bind_matrices.empty())
    return fail(SKN_ERR_INVALID_ARGUMENT, "give exactly one of bind_matrices and inverse_bind_matrices");
  const std::size_t mats = in.bind_matrices.size() + in.inverse_bind_matrices.size();
  if (mats % 16) return fail(SKN_ERR_INVALID_ARGUMENT, "bind matrices: %llu floats, not 16 a joint", mats);
  if (in.positions.size() % 3) return fail(SKN_ERR_INVALID_ARGUMENT, "positions: %llu floats, not 3 a vertex", in.positions.size());
  const std::size_t j = mats / 16, v = in.positions.size() / 3;
  if (j > UINT32_MAX || v > UINT32_MAX) return fail(SKN_ERR_INVALID_ARGUMENT, "more than 2^32-1 joints or vertices");
  skn_status s;
  if ((s = exactly(in.parents, j, "parents")) || (s = exactly(in.rest_local, j, "rest_local")) ||
      (s = exactly(in.normals, 3 * v, "normals")) || (s = exactly(in.tangents, 4 * v, "tangents")) ||
      (s = exactly(in.blend_weights, v, "blend_weights")))
    return s;
  if (in.triangles.size() % 3) return fail(SKN_ERR_INVALID_ARGUMENT, "triangles: %llu indices, not 3 a triangle", in.triangles.size());
  std::size_t n = (std::size_t)in.influences_per_vertex * v;
  if (!in.influence_offsets.empty()) {
    if (in.influence_offsets.size() != v + 1)
      return fail(SKN_ERR_INVALID_ARGUMENT, "influence_offsets: %llu, expected vertices + 1 = %llu",
                  in.influence_offsets.size(), v + 1);
    n = in.influence_offsets[v];
  }
  if (in.joints.size() != n || in.weights.size() != n)
    return fail(SKN_ERR_INVALID_ARGUMENT, "joints and weights: %llu and %llu, expected %llu each",
                in.joints.size(), in.weights.size(), n);
  std::vector<skn_morph_target> targets;
  if ((s = morph_targets(in, v, targets))) return s;
  skn_bind_desc d = {};
  d.struct_size = sizeof d;
  d.joint_count = (uint32_t)j;
  d.parents = in.parents.empty() ? nullptr : in.parents.data();
  d.bind_matrices = in.bind_matrices.empty() ? nullptr : in.bind_matrices.data();
  d.inverse_bind_matrices = in.inverse_bind_matrices.empty() ? nullptr : in.inverse_bind_matrices.data();
  d.rest_local = in.rest_local.empty() ? nullptr : in.rest_local.data();
  d.vertex_count = (uint32_t)v;
  d.positions.data = in.positions.data();
  d.normals.data = in.normals.empty() ? nullptr : in.normals.data();
  d.tangents.data = in.tangents.empty() ? nullptr : in.tangents.data();
  d.influences_per_vertex = in.influences_per_vertex;
  d.influence_offsets = in.influence_offsets.empty() ? nullptr : in.influence_offsets.data();
  d.influence_joints = in.joints.data();
  d.influence_weights = in.weights.data();
  d.weight_mode = in.weight_mode;
  d.max_influences = in.max_influences;
  d.min_weight = in.min_weight;
  d.blend_weights = in.blend_weights.empty() ? nullptr : in.blend_weights.data();
  d.triangles = in.triangles.empty() ? nullptr : in.triangles.data();
  d.triangle_count = (uint32_t)(in.triangles.size() / 3);
  d.layout = in.layout;
  d.morph_targets = targets.empty() ? nullptr : targets.data();
  d.morph_weights = in.morph_weights.empty() ? nullptr : in.morph_weights.data();
  d.morph_target_count = (uint32_t)targets.size();
  skn_rig *rig = nullptr;
  if ((s = skn_bind(&d, &rig))) return s;
  return try_adopt(rig, out);
}

// bind's morph targets as C takes them, every array checked against its entries.
inline skn_status Rig::morph_targets(const BindInput &in, std::size_t v, std::vector<skn_morph_target> &out) {
  using detail::fail;
  if (in.morph_targets.empty() && !in.morph_weights.empty())
    return fail(SKN_ERR_INVALID_ARGUMENT, "morph_weights: %llu without morph_targets", in.morph_weights.size());
  if (skn_status s = detail::exactly(in.morph_weights, in.morph_targets.size(), "morph_weights")) return s;
  if (in.morph_targets.size() > UINT32_MAX) return fail(SKN_ERR_INVALID_ARGUMENT, "more than 2^32-1 morph targets");
  out.resize(in.morph_targets.size());
  for (std::size_t t = 0; t < out.size(); ++t) {
    const MorphTarget &m = in.morph_targets[t];
    const std::size_t n = m.vertices.empty() ? v : m.vertices.size();
    if (n > UINT32_MAX) return fail(SKN_ERR_INVALID_ARGUMENT, "morph_targets[%llu]: more than 2^32-1 entries", t);
    if (m.positions.size() != 3 * n)
      return fail(SKN_ERR_INVALID_ARGUMENT, "morph_targets[%llu].positions: %llu floats, expected 3 x %llu entries", t,
                  m.positions.size(), n);
    if (!m.normals.empty() && m.normals.size() != 3 * n)
      return fail(SKN_ERR_INVALID_ARGUMENT, "morph_targets[%llu].normals: %llu floats, expected 3 x %llu entries", t,
                  m.normals.size(), n);
    if (!m.tangents.empty() && m.tangents.size() != 3 * n)
      return fail(SKN_ERR_INVALID_ARGUMENT, "morph_targets[%llu].tangents: %llu floats, expected 3 x %llu entries", t,
                  m.tangents.size(), n);
    skn_morph_target &c = out[t];
    c = {};
    c.count = (uint32_t)n;
    c.vertices = m.vertices.empty() ? nullptr : m.vertices.data();
    c.positions.data = m.positions.data();
    c.normals.data = m.normals.empty() ? nullptr : m.normals.data();
    c.tangents.data = m.tangents.empty() ? nullptr : m.tangents.data();
  }
  return SKN_OK;
}

inline skn_status Rig::try_pose(Pose &out) const {
  if (!rig_) return detail::fail(SKN_ERR_INVALID_ARGUMENT, "rig: empty (moved from, or never bound)");
  skn_pose *p = nullptr;
  if (skn_status s = skn_pose_create(rig_.get(), &p)) return s;
  Pose made;
  made.pose_ = p;
  made.rig_ = rig_;
  out = std::move(made);
  return SKN_OK;
}

inline skn_status Rig::try_skin(const Pose &pose, const SkinOutput &out, const SkinOptions &o) const {
  using detail::fail;
  if (!rig_) return fail(SKN_ERR_INVALID_ARGUMENT, "rig: empty (moved from, or never bound)");
  if (skn_status s = pose.usable()) return s;
  // The outputs must hold every vertex C may write: up to the range's end,
  // or the rig's last vertex when the range runs past it (C refuses that).
  const uint64_t v = info_.vertex_count;
  const uint64_t end = o.vertex_count ? (uint64_t)o.first_vertex + o.vertex_count : v;
  const uint64_t need = end < v ? end : v;
  if (out.positions.size() < 3 * need)
    return fail(SKN_ERR_INVALID_ARGUMENT, "positions: %llu floats, the range needs %llu", out.positions.size(), 3 * need);
  if (!out.normals.empty() && out.normals.size() < 3 * need)
    return fail(SKN_ERR_INVALID_ARGUMENT, "normals: %llu floats, the range needs %llu", out.normals.size(), 3 * need);
  if (!out.tangents.empty() && out.tangents.size() < 4 * need)
    return fail(SKN_ERR_INVALID_ARGUMENT, "tangents: %llu floats, the range needs %llu", out.tangents.size(), 4 * need);
  skn_skin_desc d = {};
  d.struct_size = sizeof d;
  d.method = o.method;
  d.dqs_scale = o.dqs_scale;
  d.first_vertex = o.first_vertex;
  d.vertex_count = o.vertex_count;
  d.threads = o.threads;
  d.stores = o.stores;
  d.positions.data = out.positions.data();
  d.normals.data = out.normals.empty() ? nullptr : out.normals.data();
  d.tangents.data = out.tangents.empty() ? nullptr : out.tangents.data();
  return skn_skin(rig_.get(), pose.pose_, &d);
}

#ifdef SKN_HPP_EXCEPTIONS
inline Pose Rig::pose() const {
  Pose p;
  detail::check(try_pose(p));
  return p;
}
#endif

// How skn_gltf_bind binds a primitive.
struct GltfBindOptions {
  uint32_t primitive = 0;
  bool centers_of_rotation = false;
  uint32_t max_influences = 0;
  float min_weight = 0.0f;
  Span<const float> blend_weights;  // the primitive's vertex count, or none
  skn_bind_layout layout = SKN_LAYOUT_FULL;
  uint64_t max_bytes = 0;           // 0: the library's 2 GiB
};

class Gltf {
 public:
  Gltf() = default;
  skn_gltf *get() const noexcept { return doc_.get(); }
  explicit operator bool() const noexcept { return doc_ != nullptr; }
  const skn_gltf_info &info() const noexcept { return info_; }

  // flags: SKN_GLTF_OPEN_ANY_PATH lets a trusted document's buffers name files outside its folder.
  static skn_status try_open(const char *path, Gltf &out, uint32_t flags = 0) {
    skn_gltf_open_desc d = {};
    d.struct_size = sizeof d;
    d.path = path;
    d.flags = flags;
    if (!path) return detail::fail(SKN_ERR_INVALID_ARGUMENT, "path: required");
    return adopt(d, out);
  }
  // folder: where a .gltf's relative buffer URIs are read from (nullptr: data: URIs only).
  static skn_status try_open_memory(Span<const unsigned char> bytes, Gltf &out, const char *folder = nullptr,
                                    uint32_t flags = 0) {
    skn_gltf_open_desc d = {};
    d.struct_size = sizeof d;
    d.data = bytes.data();
    d.size = bytes.size();
    d.folder = folder;
    d.flags = flags;
    if (!bytes.data()) return detail::fail(SKN_ERR_INVALID_ARGUMENT, "bytes: required");
    return adopt(d, out);
  }
  skn_status try_primitive(uint32_t primitive, skn_gltf_primitive_info &out) const {
    if (skn_status s = usable()) return s;
    out = {};
    out.struct_size = sizeof out;
    return skn_gltf_primitive_info_get(doc_.get(), primitive, &out);
  }
  skn_status try_animation(uint32_t animation, skn_gltf_animation_info &out) const {
    if (skn_status s = usable()) return s;
    out = {};
    out.struct_size = sizeof out;
    return skn_gltf_animation_info_get(doc_.get(), animation, &out);
  }
  skn_status try_find_animation(const char *name, uint32_t &out) const {
    if (skn_status s = usable()) return s;
    return skn_gltf_find_animation(doc_.get(), name, &out);
  }
  skn_status try_triangles(uint32_t primitive, std::vector<uint32_t> &out) const {
    skn_gltf_primitive_info p;
    if (skn_status s = try_primitive(primitive, p)) return s;
    std::vector<uint32_t> t((std::size_t)p.triangle_count * 3);
    if (skn_status s = skn_gltf_triangles(doc_.get(), primitive, t.data(), t.size())) return s;
    out.swap(t);
    return SKN_OK;
  }
  skn_status try_bind(const GltfBindOptions &o, Rig &out) const {
    skn_gltf_primitive_info p;
    if (skn_status s = try_primitive(o.primitive, p)) return s;
    if (skn_status s = detail::exactly(o.blend_weights, p.vertex_count, "blend_weights")) return s;
    skn_gltf_bind_desc d = {};
    d.struct_size = sizeof d;
    d.primitive = o.primitive;
    d.centers_of_rotation = o.centers_of_rotation;
    d.max_influences = o.max_influences;
    d.min_weight = o.min_weight;
    d.blend_weights = o.blend_weights.empty() ? nullptr : o.blend_weights.data();
    d.layout = o.layout;
    d.max_bytes = o.max_bytes;
    skn_rig *rig = nullptr;
    if (skn_status s = skn_gltf_bind(doc_.get(), &d, &rig)) return s;
    return Rig::try_adopt(rig, out);
  }
  // animation SKN_GLTF_NO_ANIMATION: the nodes' own transforms.
  skn_status try_pose(uint32_t primitive, uint32_t animation, float time, Pose &pose) const {
    if (skn_status s = usable()) return s;
    if (!pose) return detail::fail(SKN_ERR_INVALID_ARGUMENT, "pose: empty (moved from, or never made)");
    return skn_gltf_pose(doc_.get(), primitive, animation, time, pose.get());
  }
#ifdef SKN_HPP_EXCEPTIONS
  static Gltf open(const char *path, uint32_t flags = 0) {
    Gltf g;
    detail::check(try_open(path, g, flags));
    return g;
  }
  static Gltf open_memory(Span<const unsigned char> bytes, const char *folder = nullptr, uint32_t flags = 0) {
    Gltf g;
    detail::check(try_open_memory(bytes, g, folder, flags));
    return g;
  }
  skn_gltf_primitive_info primitive(uint32_t i) const {
    skn_gltf_primitive_info p;
    detail::check(try_primitive(i, p));
    return p;
  }
  skn_gltf_animation_info animation(uint32_t i) const {
    skn_gltf_animation_info a;
    detail::check(try_animation(i, a));
    return a;
  }
  uint32_t find_animation(const char *name) const {
    uint32_t i = 0;
    detail::check(try_find_animation(name, i));
    return i;
  }
  std::vector<uint32_t> triangles(uint32_t primitive) const {
    std::vector<uint32_t> t;
    detail::check(try_triangles(primitive, t));
    return t;
  }
  Rig bind(const GltfBindOptions &o) const {
    Rig r;
    detail::check(try_bind(o, r));
    return r;
  }
  void pose(uint32_t primitive, uint32_t animation, float time, Pose &pose) const {
    detail::check(try_pose(primitive, animation, time, pose));
  }
#endif

 private:
  struct Closer {
    void operator()(skn_gltf *g) const noexcept { skn_gltf_close(g); }
  };
  static skn_status adopt(const skn_gltf_open_desc &d, Gltf &out) {
    if (skn_status s = detail::check_library()) return s;
    skn_gltf *g = nullptr;
    skn_status s = skn_gltf_open_with(&d, &g);
    if (s) return s;
    Gltf made;
    made.doc_.reset(g);
    made.info_.struct_size = sizeof made.info_;
    if ((s = skn_gltf_info_get(g, &made.info_))) return s;
    out = std::move(made);
    return SKN_OK;
  }
  skn_status usable() const {
    return doc_ ? SKN_OK : detail::fail(SKN_ERR_INVALID_ARGUMENT, "gltf: empty (moved from, or never opened)");
  }
  std::unique_ptr<skn_gltf, Closer> doc_;
  skn_gltf_info info_{};
};

// skn's GLSL for a vertex shader (skn_glsl_source).
inline skn_status try_glsl_source(const skn_gpu_desc &desc, std::string &out) {
  std::size_t n = 0;
  if (skn_status s = skn_glsl_source(&desc, nullptr, 0, &n)) return s;
  std::string text(n + 1, '\0');
  if (skn_status s = skn_glsl_source(&desc, &text[0], text.size(), &n)) return s;
  text.resize(n);
  out.swap(text);
  return SKN_OK;
}
#ifdef SKN_HPP_EXCEPTIONS
inline std::string glsl_source(const skn_gpu_desc &desc) {
  std::string s;
  detail::check(try_glsl_source(desc, s));
  return s;
}
#endif

}  // namespace skn

#endif  // SKN_HPP
