/* abi_client.c — a host that knows libskn only through dlopen() and
 * skn_get_api(), as an FFI binding or a plugin would: it binds a two-joint
 * arm, poses it and skins it, and checks one vertex by hand.
 * Usage: abi_client path/to/libskn.so.1 */
#include "skn.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: abi_client LIBRARY\n");
    return 2;
  }
  void *lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    fprintf(stderr, "abi_client: %s\n", dlerror());
    return 1;
  }
  const skn_api *(*get_api)(uint32_t) = (const skn_api *(*)(uint32_t))dlsym(lib, "skn_get_api");
  const skn_api *api = get_api ? get_api(SKN_VERSION_MAJOR) : NULL;
  if (!api || api->abi_version / 10000 != SKN_VERSION_MAJOR || api->version() / 10000 != SKN_VERSION_MAJOR) {
    fprintf(stderr, "abi_client: no ABI %d table\n", SKN_VERSION_MAJOR);
    return 1;
  }
  /* joint 1 sits at (1,0,0) under joint 0; turning joint 1 by 180° about z
   * takes the vertex (2,0,0), bound to it alone, to (0,0,0). */
  const int32_t parents[2] = {-1, 0};
  const float bind[32] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1,
                          1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 1, 0, 0, 1};
  const float pos[3] = {2, 0, 0}, weight = 1;
  const uint32_t joint = 1;
  skn_bind_desc d = {sizeof d};
  d.joint_count = 2;
  d.parents = parents;
  d.bind_matrices = bind;
  d.vertex_count = 1;
  d.positions.data = pos;
  d.influences_per_vertex = 1;
  d.influence_joints = &joint;
  d.influence_weights = &weight;
  skn_rig *rig = NULL;
  skn_pose *pose = NULL;
  float out[3] = {9, 9, 9};
  skn_transform t = {{1, 0, 0}, {0, 0, 1, 0}, {1, 1, 1}};
  skn_skin_desc s = {sizeof s};
  s.positions.data = out;
  if (api->bind(&d, &rig) || api->pose_create(rig, &pose) || api->pose_set_local(pose, 1, 1, &t) ||
      api->skin(rig, pose, &s)) {
    fprintf(stderr, "abi_client: %s\n", api->last_error());
    return 1;
  }
  api->pose_destroy(pose);
  api->rig_destroy(rig);
  if (fabsf(out[0]) > 1e-6f || fabsf(out[1]) > 1e-6f || fabsf(out[2]) > 1e-6f) {
    fprintf(stderr, "abi_client: got (%g %g %g), want (0 0 0)\n", out[0], out[1], out[2]);
    return 1;
  }
  printf("abi_client: libskn %s via skn_get_api: bind, pose, skin ok\n", api->version_string());
  dlclose(lib);
  return 0;
}
