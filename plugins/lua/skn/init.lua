-- skn for LuaJIT: libskn through the FFI, with Lua's errors and finalisers.
--
--   local skn = require("skn")            -- $SKN_LIBRARY, else the library installed beside it
--   local rig = skn.bind{ bind_matrices = m, parents = p, positions = v, joints = j, weights = w }
--   local pose = rig:pose()
--   pose:set_local(0, locals)              -- 10 floats a joint: translation, rotation xyzw, scale
--   local out = rig:skin(pose, { method = "dqs" })   -- a new float[3 * vertices]
--
-- The declarations are abi/skn.h's own, generated into skn/cdef.lua by
-- scripts/lua_cdef. Arrays are FFI arrays (skn.floats(n), ffi.new("float[?]",
-- n)) or Lua tables of numbers (copied); a pointer has no length, so it is
-- refused: every array's length is checked against the counts it goes with
-- before C is called. Outputs are FFI float arrays, written in place.
-- Indices (joints, vertices, primitives, animations) are skn's, from 0; a
-- table must be a sequence (no holes, no other keys), and integers must fit
-- their C type. Option tables may hold only the keys a call knows.
-- Errors are raised as tables {status = "SKN_ERR_...", message = "..."}
-- whose tostring is "STATUS: message". Rigs, poses and documents are freed
-- by their finalisers (ffi.gc), or at once by :destroy() / :close();
-- skn.live_handles() counts those not yet freed. A handle lives in one place
-- (a copy of an object's fields holds none), and a rig outlives its poses.
-- LuaJIT states are single-threaded: an object belongs to its lua_State.
local ffi = require("ffi")
ffi.cdef(require("skn.cdef"))

-- The library: $SKN_LIBRARY; else the one installed beside this module
-- (PREFIX/lib for PREFIX/share/lua/5.1/skn/init.lua: `make install`), or
-- the build tree's for the module in plugins/lua; else the loader's path.
local function load_library()
  local given = os.getenv("SKN_LIBRARY")
  if given then return ffi.load(given) end
  local lua_dir = debug.getinfo(1, "S").source:match("^@(.*)/skn/init%.lua$")
  for _, path in ipairs(lua_dir and { lua_dir .. "/../../../lib/libskn.so.1", lua_dir .. "/../../build/libskn.so.1" } or {}) do
    local f = io.open(path, "rb")
    if f then
      f:close()
      return ffi.load(path)
    end
  end
  return ffi.load("libskn.so.1")
end
local lib = load_library()
local skn = {}

local Error = {}
Error.__index = Error
Error.__tostring = function(e) return e.status .. ": " .. e.message end
skn.Error = Error

local function raise(status, message)
  error(setmetatable({ status = status, message = message }, Error), 0)
end
local function invalid(message) raise("SKN_ERR_INVALID_ARGUMENT", message) end
local function check(status)
  if status ~= 0 then raise(ffi.string(lib.skn_status_name(status)), ffi.string(lib.skn_last_error())) end
end

local loaded = lib.skn_version()
if math.floor(loaded / 10000) ~= lib.SKN_VERSION_MAJOR then
  error(string.format("skn: the loaded libskn is %s, but this module is for ABI %d.x; set SKN_LIBRARY",
    ffi.string(lib.skn_version_string()), lib.SKN_VERSION_MAJOR), 0)
end
skn.version = ffi.string(lib.skn_version_string())
skn.lib = lib -- the raw calls, for what this module does not wrap

-- Names for the enums, as the Python package spells them (any case).
local METHODS = { lbs = 0, ["lbs-quat"] = 1, dqs = 2, blend = 3, cor = 4 }
local SPLITS = { polar = 0, ["keep-y"] = 1 }
local STORES = { auto = 0, cached = 1, streaming = 2 }
local LAYOUTS = { full = 0, compact = 1 }
local WEIGHT_MODES = { normalize = 0, ["as-given"] = 1, ["require-unit"] = 2 }
local PALETTES = { mat4 = { 0, 16 }, rows3x4 = { 1, 12 }, ["normal-rows3x4"] = { 2, 12 },
  ["dual-quat"] = { 3, 8 }, ["dual-quat-scale"] = { 4, 20 }, ["dual-quat-scale-keep-y"] = { 5, 20 } }
local DIALECTS = { ["330"] = 0, ["300 es"] = 1, ["430"] = 2, ["310 es"] = 3 }
local GLSL_PALETTES = { ["uniform-block"] = 0, ["texture-buffer"] = 1, ["texture-2d"] = 2, ["storage-buffer"] = 3 }

-- The tables, for the layout test (each must cover its enum in skn.h).
skn.names = { skn_method = METHODS, skn_dqs_scale = SPLITS, skn_stores = STORES, skn_bind_layout = LAYOUTS,
  skn_weight_mode = WEIGHT_MODES, skn_palette_format = PALETTES, skn_glsl_dialect = DIALECTS,
  skn_glsl_palette = GLSL_PALETTES }

local function choice(value, options, what, default)
  if value == nil then value = default end
  local v = type(value) == "string" and options[value:lower()]
  if not v then
    local valid = {}
    for k in pairs(options) do valid[#valid + 1] = '"' .. k .. '"' end
    table.sort(valid)
    invalid(string.format("%s: %s is not one of %s", what, tostring(value), table.concat(valid, ", ")))
  end
  return v
end

local function index(x, what)
  if x == nil then return 0 end
  if type(x) ~= "number" or x ~= math.floor(x) or x < 0 or x > 0xFFFFFFFF then
    invalid(string.format("%s: %s is not an index (an integer in [0, 2^32))", what, tostring(x)))
  end
  return x
end

-- A byte count for a uint64_t: an integer from 0 to 2^53 (a Lua number's).
local function byte_count(x, what)
  if x == nil then return 0 end
  if type(x) ~= "number" or x ~= math.floor(x) or x < 0 or x > 2 ^ 53 then
    invalid(string.format("%s: %s is not a byte count (an integer from 0)", what, tostring(x)))
  end
  return x
end

local function real(x, what, default)
  if x == nil then return default end
  if type(x) ~= "number" then invalid(string.format("%s: expected a number, not a %s", what, type(x))) end
  return x
end

-- An options table whose every key the call knows (a misspelt or unsupported one is refused, never ignored).
local function options(o, known, what)
  if o == nil then return {} end
  if type(o) ~= "table" then invalid(string.format("%s: expected a table of options, not a %s", what, type(o))) end
  for k in pairs(o) do
    if not known[k] then
      local names = {}
      for name in pairs(known) do names[#names + 1] = name end
      table.sort(names)
      invalid(string.format("%s: unknown option %s (known: %s)", what, tostring(k), table.concat(names, ", ")))
    end
  end
  return o
end

local function set(...)
  local t = {}
  for _, k in ipairs({ ... }) do t[k] = true end
  return t
end

-- A file name: a string without NUL (C would open only what is before it).
local function path_name(x, what)
  if type(x) ~= "string" then invalid(what .. ": expected a string, not a " .. type(x)) end
  if x:find("\0", 1, true) then invalid(string.format("%s: %q holds a NUL byte: C would open only what is before it", what, x)) end
  return x
end

-- The range of each integer element type (math.huge, NaN and 2^32 + 2 are not uint32_t).
local RANGES = { uint32_t = { 0, 0xFFFFFFFF }, int32_t = { -0x80000000, 0x7FFFFFFF } }

-- The length of a table that must be a sequence: its keys exactly 1..n.
local function sequence_length(x, what)
  local n, keys = #x, 0
  for k in pairs(x) do
    keys = keys + 1
    if type(k) ~= "number" or k ~= math.floor(k) or k < 1 or k > n then
      invalid(string.format("%s: key %s is not in 1..%d: a table of values must be a sequence", what, tostring(k), n))
    end
  end
  if keys ~= n then invalid(string.format("%s: %d values under keys 1..%d: a table with holes", what, keys, n)) end
  return n
end

-- An array argument: (cdata pointer, element count), or nil, 0.
-- `elem` is "float", "uint32_t" or "int32_t". A table is copied into a new
-- array (kept alive by the caller's `keep`); an FFI array is used in place.
local CDATA_ELEMS = { float = "float", ["unsigned int"] = "uint32_t", int = "int32_t" }
local function array(x, elem, what, keep)
  if x == nil then return nil, 0 end
  if type(x) == "table" then
    local n = sequence_length(x, what)
    local a = ffi.new(elem .. "[?]", n)
    local range = RANGES[elem]
    for i = 1, n do
      local v = x[i]
      if type(v) ~= "number" or (range and v ~= math.floor(v)) then
        invalid(string.format("%s: element %d is %s, not %s", what, i, tostring(v), range and "an integer" or "a number"))
      end
      if range and (v < range[1] or v > range[2]) then
        invalid(string.format("%s: element %d is %s, outside %s (%d to %d)", what, i, tostring(v), elem, range[1], range[2]))
      end
      a[i - 1] = v
    end
    keep[#keep + 1] = a
    return a, n
  end
  if type(x) == "cdata" then
    local name = tostring(ffi.typeof(x)):match("^ctype<(.-) %[.*%]>$")
    name = name and name:gsub("^const ", "")
    if not name then
      invalid(what .. ": " .. tostring(ffi.typeof(x)) .. " has no length; pass an array (skn.floats(n)) or a table")
    end
    if CDATA_ELEMS[name] ~= elem then invalid(string.format("%s: an array of %s, expected %s", what, name, elem)) end
    keep[#keep + 1] = x
    return x, ffi.sizeof(x) / ffi.sizeof(elem)
  end
  invalid(string.format("%s: expected an array of %s or a table, not a %s", what, elem, type(x)))
end

local function exactly(n, want, what)
  if n ~= 0 and n ~= want then
    invalid(string.format("%s: %d elements, expected %d (or none)", what, n, want))
  end
end

-- An output: an FFI float array of at least `need` floats, or a new one.
local function output(x, need, total, what, keep)
  if x == nil then return ffi.new("float[?]", total), total end
  local a, n = array(x, "float", what, keep)
  if type(x) == "table" then invalid(what .. ": an output must be an FFI float array (skn.floats(n))") end
  if n < need then invalid(string.format("%s: %d floats, the range needs %d", what, n, need)) end
  return a, n
end

function skn.floats(n) return ffi.new("float[?]", n) end

-- ---- rigs and poses ----
local Rig, Pose, Gltf = {}, {}, {}
local handles = 0 -- made and not yet freed: skn.live_handles(), for hosts' leak checks
-- Each object's state — its handle (h), a rig's live poses, a pose's rig —
-- keyed by the object, weakly: the object's own fields hold no handle, so a
-- copy of them (pairs into a new table with the metatable) is no skn object
-- and cannot free the handle a second time. No state refers back to its
-- own key (Lua 5.1's weak keys are not ephemerons).
local state_of = setmetatable({}, { __mode = "k" })

-- Rigs, poses and documents made and not yet freed (by destroy/close or the collector).
function skn.live_handles() return handles end

-- A handle freed by `free` at the collector's, counted.
local function owned(h, free)
  handles = handles + 1
  return ffi.gc(h, function(p)
    free(p)
    handles = handles - 1
  end)
end

-- Frees now what `owned` would free later.
local function release(h, free)
  free(ffi.gc(h, nil))
  handles = handles - 1
end
Rig.__index, Pose.__index, Gltf.__index = Rig, Pose, Gltf

-- The object's handle and state; refused for another kind, a copy, or after destroy.
local function handle(obj, kind, what)
  if getmetatable(obj) ~= kind then invalid(what .. ": expected a skn " .. what .. ", not " .. tostring(obj)) end
  local st = state_of[obj]
  if st == nil then invalid(what .. ": a copy of a skn " .. what .. " holds no handle; share the object itself") end
  if st.h == nil then invalid(what .. ": used after destroy()") end
  return st.h, st
end

local function adopt(obj, kind, st)
  state_of[obj] = st
  return setmetatable(obj, kind)
end

local function adopt_rig(h)
  local info = ffi.new("skn_rig_info")
  info.struct_size = ffi.sizeof(info)
  local st = { h = owned(h, lib.skn_rig_destroy), poses = 0 }
  check(lib.skn_rig_info_get(h, info))
  local flags = info.flags
  return adopt({ joint_count = info.joint_count, vertex_count = info.vertex_count,
    influence_count = info.influence_count, flags = flags, morph_target_count = info.morph_target_count,
    has_normals = bit.band(flags, lib.SKN_RIG_HAS_NORMALS) ~= 0,
    has_tangents = bit.band(flags, lib.SKN_RIG_HAS_TANGENTS) ~= 0 }, Rig, st)
end

-- bind's morph targets: { positions = ..., normals = ..., tangents = ... (3 numbers an entry),
-- vertices = ... (the entries' vertex indices; none: every vertex) } each.
local TARGET_KEYS = set("positions", "normals", "tangents", "vertices")
local function morph_targets(list, v, weights, d, keep)
  if list == nil then
    if weights ~= nil then invalid("morph_weights without morph_targets") end
    return
  end
  if type(list) ~= "table" then invalid("morph_targets: expected a table of targets, not a " .. type(list)) end
  local n = sequence_length(list, "morph_targets")
  if n == 0 then return end
  local targets = ffi.new("skn_morph_target[?]", n)
  keep[#keep + 1] = targets
  for t = 1, n do
    local what = string.format("morph_targets[%d]", t)
    local target = options(list[t], TARGET_KEYS, what)
    local vertices, m = array(target.vertices, "uint32_t", what .. ".vertices", keep)
    if target.vertices == nil then m = v end
    local c = targets[t - 1]
    c.count, c.vertices = m, vertices
    if target.positions == nil then invalid(what .. ".positions are required") end
    for _, key in ipairs({ "positions", "normals", "tangents" }) do
      local a, count = array(target[key], "float", what .. "." .. key, keep)
      exactly(count, 3 * m, what .. "." .. key)
      c[key].data = a
    end
  end
  local w, nw = array(weights, "float", "morph_weights", keep)
  exactly(nw, n, "morph_weights")
  d.morph_targets, d.morph_weights, d.morph_target_count = targets, w, n
end

-- skn_bind from a table of arrays; the joint count is bind_matrices' (or
-- inverse_bind_matrices') length / 16, the vertex count positions' / 3.
local BIND_KEYS = set("bind_matrices", "inverse_bind_matrices", "parents", "positions", "normals", "tangents",
  "influences_per_vertex", "influence_offsets", "joints", "weights", "blend_weights", "triangles", "weight_mode",
  "max_influences", "min_weight", "layout", "morph_targets", "morph_weights")
function skn.bind(t)
  if type(t) ~= "table" then invalid("bind: expected a table of arrays, not " .. type(t)) end
  options(t, BIND_KEYS, "bind")
  local keep = {}
  local bm, nbm = array(t.bind_matrices, "float", "bind_matrices", keep)
  local ibm, nibm = array(t.inverse_bind_matrices, "float", "inverse_bind_matrices", keep)
  if (nbm == 0) == (nibm == 0) then invalid("give exactly one of bind_matrices and inverse_bind_matrices") end
  if (nbm + nibm) % 16 ~= 0 then invalid(string.format("bind matrices: %d floats, not 16 a joint", nbm + nibm)) end
  local pos, npos = array(t.positions, "float", "positions", keep)
  if npos == 0 or npos % 3 ~= 0 then invalid(string.format("positions: %d floats, not 3 a vertex", npos)) end
  local j, v = (nbm + nibm) / 16, npos / 3
  local d = ffi.new("skn_bind_desc")
  d.struct_size = ffi.sizeof(d)
  d.joint_count, d.vertex_count = j, v
  d.bind_matrices, d.inverse_bind_matrices, d.positions.data = bm, ibm, pos
  local n
  d.parents, n = array(t.parents, "int32_t", "parents", keep); exactly(n, j, "parents")
  d.normals.data, n = array(t.normals, "float", "normals", keep); exactly(n, 3 * v, "normals")
  d.tangents.data, n = array(t.tangents, "float", "tangents", keep); exactly(n, 4 * v, "tangents")
  d.blend_weights, n = array(t.blend_weights, "float", "blend_weights", keep); exactly(n, v, "blend_weights")
  local tris, ntris = array(t.triangles, "uint32_t", "triangles", keep)
  if ntris % 3 ~= 0 then invalid(string.format("triangles: %d indices, not 3 a triangle", ntris)) end
  d.triangles, d.triangle_count = tris, ntris / 3
  local k = index(t.influences_per_vertex or 4, "influences_per_vertex")
  local want = k * v
  if t.influence_offsets ~= nil then
    local off, noff = array(t.influence_offsets, "uint32_t", "influence_offsets", keep)
    if noff ~= v + 1 then invalid(string.format("influence_offsets: %d, expected vertices + 1 = %d", noff, v + 1)) end
    d.influence_offsets, want = off, off[v]
  end
  local nj, nw
  d.influence_joints, nj = array(t.joints, "uint32_t", "joints", keep)
  d.influence_weights, nw = array(t.weights, "float", "weights", keep)
  if nj ~= want or nw ~= want then
    invalid(string.format("joints and weights: %d and %d, expected %d each", nj, nw, want))
  end
  d.influences_per_vertex = k
  d.weight_mode = choice(t.weight_mode, WEIGHT_MODES, "weight_mode", "normalize")
  d.layout = choice(t.layout, LAYOUTS, "layout", "full")
  d.max_influences = index(t.max_influences, "max_influences")
  d.min_weight = real(t.min_weight, "min_weight", 0)
  morph_targets(t.morph_targets, v, t.morph_weights, d, keep)
  local out = ffi.new("skn_rig*[1]")
  check(lib.skn_bind(d, out))
  return adopt_rig(out[0])
end

function Rig:destroy()
  local st = state_of[self]
  if getmetatable(self) ~= Rig or st == nil or st.h == nil then return end
  if st.poses > 0 then invalid(string.format("rig: %d poses of it are alive; destroy them first", st.poses)) end
  release(st.h, lib.skn_rig_destroy)
  st.h = nil
end

function Rig:pose()
  local rh, rst = handle(self, Rig, "rig")
  local out = ffi.new("skn_pose*[1]")
  check(lib.skn_pose_create(rh, out))
  local rig = self -- the finaliser holds the rig, which so outlives its poses
  rst.poses = rst.poses + 1
  return adopt({ rig = self }, Pose, { rig = self, rig_state = rst, h = owned(out[0], function(p)
    lib.skn_pose_destroy(p)
    rst.poses = rst.poses - 1
    local _ = rig
  end) })
end

function Pose:destroy()
  local st = state_of[self]
  if getmetatable(self) ~= Pose or st == nil or st.h == nil then return end
  release(st.h, lib.skn_pose_destroy)
  st.h = nil
  st.rig_state.poses = st.rig_state.poses - 1
end

-- The weights of morph targets [first, first + n): a table or a float array.
function Pose:set_morph_weights(first, weights)
  local ph, keep = handle(self, Pose, "pose"), {}
  local a, n = array(weights, "float", "weights", keep)
  check(lib.skn_pose_set_morph_weights(ph, index(first, "first"), n, a))
end

-- Every morph target's weight, a new float[morph_target_count].
function Pose:morph_weights()
  local ph, st = handle(self, Pose, "pose")
  local n = st.rig.morph_target_count
  local out = ffi.new("float[?]", math.max(n, 1))
  if n > 0 then check(lib.skn_pose_morph_weights(ph, 0, n, out)) end
  return out, n
end

-- Joints [first, first + n) from parent-relative transforms: 10 floats a
-- joint (translation xyz, rotation xyzw, scale xyz), or skn_transform[n].
function Pose:set_local(first, local_transforms)
  local ph, keep = handle(self, Pose, "pose"), {}
  local a, n
  if type(local_transforms) == "cdata" and ffi.istype("skn_transform[?]", local_transforms) then
    a, n = local_transforms, ffi.sizeof(local_transforms) / 40
  else
    a, n = array(local_transforms, "float", "local", keep)
    if n % 10 ~= 0 then invalid(string.format("local: %d floats, not 10 a joint", n)) end
    n = n / 10
  end
  check(lib.skn_pose_set_local(ph, index(first, "first"), n, ffi.cast("const skn_transform *", a)))
end

-- Joints [first, first + n) from joint -> model matrices, 16 floats each.
function Pose:set_model(first, matrices)
  local ph, keep = handle(self, Pose, "pose"), {}
  local a, n = array(matrices, "float", "matrices", keep)
  if n % 16 ~= 0 then invalid(string.format("matrices: %d floats, not 16 a joint", n)) end
  check(lib.skn_pose_set_model(ph, index(first, "first"), n / 16, a))
end

-- The palette in a format ("mat4", "rows3x4", ...), into dst or a new array.
function Pose:palette(format, dst)
  local keep = {}
  local ph, st = handle(self, Pose, "pose")
  local f = choice(format, PALETTES, "format", "mat4")
  local need = f[2] * st.rig.joint_count
  local a, n = output(dst, need, need, "dst", keep)
  check(lib.skn_pose_palette(ph, f[1], a, n * 4))
  return a
end

-- Deforms vertices [first_vertex, first_vertex + vertex_count) into
-- o.positions (and o.normals, o.tangents: arrays, or true for new ones),
-- addressed by absolute vertex index. Returns positions, normals, tangents.
local SKIN_KEYS = set("method", "dqs_scale", "stores", "first_vertex", "vertex_count", "threads", "positions",
  "normals", "tangents")
function Rig:skin(pose, o)
  o = options(o, SKIN_KEYS, "skin")
  local rh, ph, keep = handle(self, Rig, "rig"), handle(pose, Pose, "pose"), {}
  local v = self.vertex_count
  local first, count = index(o.first_vertex, "first_vertex"), index(o.vertex_count, "vertex_count")
  local e = count ~= 0 and first + count or v
  local need = math.min(e, v)
  local d = ffi.new("skn_skin_desc")
  d.struct_size = ffi.sizeof(d)
  d.method = choice(o.method, METHODS, "method", "lbs")
  d.dqs_scale = choice(o.dqs_scale, SPLITS, "dqs_scale", "polar")
  d.stores = choice(o.stores, STORES, "stores", "auto")
  d.first_vertex, d.vertex_count, d.threads = first, count, index(o.threads, "threads")
  local p = output(o.positions, 3 * need, 3 * v, "positions", keep)
  local n, t
  if o.normals then
    if not self.has_normals then invalid("normals: this rig was bound without normals") end
    n = output(o.normals ~= true and o.normals or nil, 3 * need, 3 * v, "normals", keep)
  end
  if o.tangents then
    if not self.has_tangents then invalid("tangents: this rig was bound without tangents") end
    t = output(o.tangents ~= true and o.tangents or nil, 4 * need, 4 * v, "tangents", keep)
  end
  d.positions.data, d.normals.data, d.tangents.data = p, n, t
  check(lib.skn_skin(rh, ph, d))
  return p, n, t
end

-- ---- glTF ----
local function open_with(d)
  local out = ffi.new("skn_gltf*[1]")
  check(lib.skn_gltf_open_with(d, out))
  local info = ffi.new("skn_gltf_info")
  info.struct_size = ffi.sizeof(info)
  local st = { h = owned(out[0], lib.skn_gltf_close) }
  check(lib.skn_gltf_info_get(st.h, info))
  return adopt({ primitive_count = info.primitive_count, skin_count = info.skin_count,
    animation_count = info.animation_count, node_count = info.node_count, mesh_count = info.mesh_count }, Gltf, st)
end

local OPEN_KEYS, MEMORY_KEYS = set("any_path"), set("folder", "any_path")

-- A .gltf or .glb file. Its buffers are read from files in its folder only;
-- o.any_path lets it name absolute paths and climb out with '..' (for
-- documents the host trusts: skn.h, SKN_GLTF_OPEN_ANY_PATH).
function skn.open(path, o)
  o = options(o, OPEN_KEYS, "open")
  local d = ffi.new("skn_gltf_open_desc")
  d.struct_size, d.path = ffi.sizeof(d), path_name(path, "path")
  d.flags = o.any_path and lib.SKN_GLTF_OPEN_ANY_PATH or 0
  return open_with(d)
end

-- A .glb, or a .gltf with data: URIs — or, with o.folder, files read from
-- that folder as from a file's — from a Lua string.
function skn.open_memory(bytes, o)
  o = options(o, MEMORY_KEYS, "open_memory")
  if type(bytes) ~= "string" then invalid("bytes: expected a string, not a " .. type(bytes)) end
  local d = ffi.new("skn_gltf_open_desc")
  d.struct_size, d.data, d.size = ffi.sizeof(d), bytes, #bytes
  d.folder = o.folder ~= nil and path_name(o.folder, "folder") or nil
  d.flags = o.any_path and lib.SKN_GLTF_OPEN_ANY_PATH or 0
  return open_with(d)
end

function Gltf:close()
  local st = state_of[self]
  if getmetatable(self) ~= Gltf or st == nil or st.h == nil then return end
  release(st.h, lib.skn_gltf_close)
  st.h = nil
end

function Gltf:primitive(i)
  local h, p = handle(self, Gltf, "gltf"), ffi.new("skn_gltf_primitive_info")
  p.struct_size = ffi.sizeof(p)
  check(lib.skn_gltf_primitive_info_get(h, index(i, "primitive"), p))
  return { mesh = p.mesh, primitive_in_mesh = p.primitive_in_mesh, node = p.node, skin = p.skin,
    vertex_count = p.vertex_count, triangle_count = p.triangle_count, joint_count = p.joint_count,
    influences_per_vertex = p.influences_per_vertex, mesh_name = ffi.string(p.mesh_name),
    has_normals = bit.band(p.flags, lib.SKN_GLTF_HAS_NORMALS) ~= 0,
    has_tangents = bit.band(p.flags, lib.SKN_GLTF_HAS_TANGENTS) ~= 0 }
end

function Gltf:animation(i)
  local h, a = handle(self, Gltf, "gltf"), ffi.new("skn_gltf_animation_info")
  a.struct_size = ffi.sizeof(a)
  check(lib.skn_gltf_animation_info_get(h, index(i, "animation"), a))
  return { channel_count = a.channel_count, start = a.start, ["end"] = a["end"], name = ffi.string(a.name) }
end

-- The first animation of that name, or nil.
function Gltf:find_animation(name)
  local h, out = handle(self, Gltf, "gltf"), ffi.new("uint32_t[1]")
  if type(name) ~= "string" then invalid("name: expected a string") end
  local s = lib.skn_gltf_find_animation(h, name, out)
  if s == lib.SKN_ERR_INDEX_OUT_OF_RANGE then return nil end
  check(s)
  return out[0]
end

-- The primitive's triangles: a uint32_t[3 * triangle_count] array.
function Gltf:triangles(i)
  local h, n = handle(self, Gltf, "gltf"), self:primitive(i).triangle_count * 3
  local t = ffi.new("uint32_t[?]", n)
  check(lib.skn_gltf_triangles(h, i, t, n))
  return t
end

local GLTF_BIND_KEYS = set("primitive", "centers_of_rotation", "max_influences", "min_weight", "blend_weights",
  "layout", "max_bytes")
function Gltf:bind(o)
  o = options(o, GLTF_BIND_KEYS, "bind")
  local h, keep = handle(self, Gltf, "gltf"), {}
  local d = ffi.new("skn_gltf_bind_desc")
  d.struct_size = ffi.sizeof(d)
  d.primitive = index(o.primitive, "primitive")
  local p = self:primitive(d.primitive)
  local n
  d.blend_weights, n = array(o.blend_weights, "float", "blend_weights", keep)
  exactly(n, p.vertex_count, "blend_weights")
  d.centers_of_rotation = o.centers_of_rotation and 1 or 0
  d.max_influences = index(o.max_influences, "max_influences")
  d.min_weight = real(o.min_weight, "min_weight", 0)
  d.layout = choice(o.layout, LAYOUTS, "layout", "full")
  d.max_bytes = byte_count(o.max_bytes, "max_bytes")
  local out = ffi.new("skn_rig*[1]")
  check(lib.skn_gltf_bind(h, d, out))
  return adopt_rig(out[0])
end

-- Poses a rig of `primitive` at `time` seconds of `animation` (nil: the
-- nodes' own transforms).
function Gltf:pose(primitive, animation, time, pose)
  local h, ph = handle(self, Gltf, "gltf"), handle(pose, Pose, "pose")
  local a = animation == nil and lib.SKN_GLTF_NO_ANIMATION or index(animation, "animation")
  if type(time) ~= "number" then invalid("time: expected a number") end
  check(lib.skn_gltf_pose(h, index(primitive, "primitive"), a, time, ph))
end

-- ---- GPU ----
-- skn's GLSL (skn_glsl_source) for o.method, o.influences (4, 8, 12 or 16), o.dialect
-- ("330", "300 es", "430", "310 es"), o.palette ("uniform-block", ...), o.joint_count, and
-- o.normals / o.tangents for skn_skin_normal() / skn_skin_tangent().
function skn.glsl_source(o)
  local d = ffi.new("skn_gpu_desc")
  d.struct_size = ffi.sizeof(d)
  d.method = choice(o.method, METHODS, "method", "lbs")
  d.dqs_scale = choice(o.dqs_scale, SPLITS, "dqs_scale", "polar")
  d.influences = index(o.influences or 4, "influences")
  d.outputs = (o.normals and lib.SKN_GPU_NORMALS or 0) + (o.tangents and lib.SKN_GPU_TANGENTS or 0)
  d.dialect = choice(o.dialect, DIALECTS, "dialect", "330")
  d.palette = choice(o.palette, GLSL_PALETTES, "palette", "uniform-block")
  d.joint_count = index(o.joint_count, "joint_count")
  local n = ffi.new("size_t[1]")
  check(lib.skn_glsl_source(d, nil, 0, n))
  local text = ffi.new("char[?]", n[0] + 1)
  check(lib.skn_glsl_source(d, text, n[0] + 1, n))
  return ffi.string(text, n[0])
end

return skn
