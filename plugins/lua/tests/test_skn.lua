-- test_skn.lua — the LuaJIT module against the C library's own outputs, the
-- header's layouts, and bad input.
--
--   SKN_LIBRARY=build/libskn.so.1 luajit plugins/lua/tests/test_skn.lua REFERENCE_DIR LAYOUTS
--
-- REFERENCE_DIR is build/adapters (tests/adapters/reference.c), LAYOUTS
-- build/abi/layouts.txt (scripts/abi_layouts). Ends "lua: N passed, N failed".
package.path = "plugins/lua/?.lua;plugins/lua/?/init.lua;" .. package.path
local ffi = require("ffi")
local skn = require("skn")
local ref, layouts = arg[1], arg[2]
local passed, failed = 0, 0

local function expect(cond, what)
  if cond then
    passed = passed + 1
  else
    failed = failed + 1
    print("FAIL " .. what)
  end
end

-- f() must raise a skn error of `status` whose message contains `text`.
local function expect_error(status, text, what, f, ...)
  local ok, e = pcall(f, ...)
  local good = not ok and getmetatable(e) == skn.Error and e.status == status and
      (text == nil or e.message:find(text, 1, true) ~= nil)
  expect(good, what .. ": " .. tostring(e))
end

local function read(name)
  local f = assert(io.open(ref .. "/" .. name, "rb"))
  local s = f:read("*a")
  f:close()
  return s
end

local function array(ctype, name)
  local s = read(name)
  local a = ffi.new(ctype .. "[?]", #s / 4)
  ffi.copy(a, s, #s)
  return a
end

-- ---- the reference: every case, method and split, bit for bit ----
local METHODS = { LBS_MATRIX = "lbs", LBS_QUATERNION = "lbs-quat", DQS = "dqs", BLEND = "blend", COR = "cor" }
local lines = {}
for line in io.lines(ref .. "/cases.txt") do lines[#lines + 1] = line end
local i, cases = 1, 0
while i <= #lines do
  local w = {}
  for x in lines[i]:gmatch("%S+") do w[#w + 1] = x end
  local name, rig, pose = w[2]
  if w[1] == "proc" then
    rig = skn.bind { bind_matrices = array("float", name .. ".bind_matrices"), parents = array("int32_t", name .. ".parents"),
      positions = array("float", name .. ".positions"), normals = array("float", name .. ".normals"),
      tangents = array("float", name .. ".tangents"), joints = array("uint32_t", name .. ".joints"),
      weights = array("float", name .. ".weights"), blend_weights = array("float", name .. ".blend"),
      triangles = array("uint32_t", name .. ".triangles") }
    pose = rig:pose()
    pose:set_local(0, array("float", name .. ".local"))
  else
    local doc = skn.open(w[3])
    local prim, anim, time = tonumber(w[4]), tonumber(w[5]), tonumber(w[6])
    local n = doc:primitive(prim).vertex_count
    local blend = skn.floats(n)
    for v = 0, n - 1 do blend[v] = (v % 5) / 4 end
    rig = doc:bind { primitive = prim, centers_of_rotation = true, blend_weights = blend }
    pose = rig:pose()
    doc:pose(prim, anim, time, pose)
    doc:close()
  end
  cases = cases + 1
  i = i + 1
  while i <= #lines and lines[i]:match("^run ") do
    local _, _, method, split, status = lines[i]:match("^(%S+) (%S+) (%S+) (%S+) (%S+)$")
    local ok, p, n, t = pcall(rig.skin, rig, pose, { method = METHODS[method], dqs_scale = split == "KEEP_Y" and "keep-y" or "polar",
      threads = 1, normals = rig.has_normals, tangents = rig.has_tangents })
    local got = ok and "SKN_OK" or p.status
    expect(got == status, string.format("%s %s %s: %s, reference %s", name, method, split, tostring(ok or p), status))
    if ok and status == "SKN_OK" then
      local stem, v = name .. "." .. method .. "." .. split .. ".", rig.vertex_count
      expect(ffi.string(p, 12 * v) == read(stem .. "positions"), stem .. " positions")
      if n then expect(ffi.string(n, 12 * v) == read(stem .. "normals"), stem .. " normals") end
      if t then expect(ffi.string(t, 16 * v) == read(stem .. "tangents"), stem .. " tangents") end
    end
    i = i + 1
  end
  pose:destroy()
  rig:destroy()
end
expect(cases == 4, "4 reference cases, got " .. cases)

-- ---- the header's layouts: every struct, field, enum constant and call ----
local structs, enums = 0, 0
for line in io.lines(layouts) do
  local w = {}
  for x in line:gmatch("%S+") do w[#w + 1] = x end
  if w[1] == "struct" then
    structs = structs + 1
    expect(ffi.sizeof(w[2]) == tonumber(w[3]) and ffi.alignof(w[2]) == tonumber(w[4]), "sizeof " .. w[2])
  elseif w[1] == "field" then
    local ok, off = pcall(ffi.offsetof, w[2], w[3])
    expect(ok and off == tonumber(w[4]), w[2] .. "." .. w[3] .. " at " .. tostring(off) .. ", header " .. w[4])
  elseif w[1] == "enum" then
    enums = enums + 1
    expect(tonumber(skn.lib[w[3]]) == tonumber(w[4]), w[3])
  elseif w[1] == "const" then
    expect(tonumber(skn.lib[w[2]]) == tonumber(w[3]), w[2])
  elseif w[1] == "function" then
    expect(pcall(function() return skn.lib[w[2]] end), w[2] .. " is declared")
  end
end
expect(structs >= 15 and enums >= 60, "layouts read: " .. structs .. " structs, " .. enums .. " enum constants")
-- the module's name tables cover their enums (FORCE_U32 aside)
local in_header = {}
for line in io.lines(layouts) do
  local e, c, v = line:match("^enum (%S+) (%S+) (%S+)$")
  if e and not c:match("FORCE_U32$") then in_header[e] = (in_header[e] or 0) + 1 end
end
for e, t in pairs(skn.names) do
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  expect(n == in_header[e], e .. ": the module names " .. n .. ", the header has " .. tostring(in_header[e]))
end

-- ---- bad input ----
local function small(over)
  local t = { bind_matrices = { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 1, 0, 1 },
    parents = { -1, 0 }, positions = { 0, 0, 0, 0, 1, 0, 0, 2, 0 }, normals = { 1, 0, 0, 1, 0, 0, 1, 0, 0 },
    influences_per_vertex = 2, joints = { 0, 1, 0, 1, 0, 1 }, weights = { 1, 0, 0.5, 0.5, 0, 1 } }
  for k, v in pairs(over or {}) do t[k] = v end
  return t
end
local INVALID = "SKN_ERR_INVALID_ARGUMENT"
expect_error(INVALID, "bind: expected a table of arrays, not nil", "bind()", skn.bind)
expect_error(INVALID, "positions: 8 floats, not 3 a vertex", "short positions", skn.bind, small { positions = { 0, 0, 0, 0, 1, 0, 0, 2 } })
expect_error(INVALID, "normals: 6 elements, expected 9", "short normals", skn.bind, small { normals = { 1, 0, 0, 1, 0, 0 } })
expect_error(INVALID, "joints and weights: 5 and 6", "a joint short", skn.bind, small { joints = { 0, 1, 0, 1, 0 } })
expect_error(INVALID, "parents: 1 elements", "parents of 1 joint", skn.bind, small { parents = { -1 } })
expect_error(INVALID, "element 2 is x", "a string in positions", skn.bind, small { positions = { 0, "x", 0, 0, 1, 0, 0, 2, 0 } })
expect_error(INVALID, "element 2 is 0.5, not an integer", "a float joint index", skn.bind, small { joints = { 0, 0.5, 0, 1, 0, 1 } })
expect_error(INVALID, "an array of float, expected uint32_t", "floats as joints", skn.bind,
  small { joints = ffi.new("float[6]") })
expect_error(INVALID, "has no length", "a pointer", skn.bind, small { positions = ffi.cast("float *", skn.floats(9)) })
expect_error(INVALID, "expected an array of float or a table, not a string", "a string", skn.bind, small { positions = "abc" })
expect_error("SKN_ERR_INDEX_OUT_OF_RANGE", "joint 7 >= joint_count 2", "joint 7", skn.bind, small { joints = { 0, 1, 0, 7, 0, 1 } })
expect_error("SKN_ERR_BAD_HIERARCHY", "parent 5 is out of range", "parent 5", skn.bind, small { parents = { -1, 5 } })
expect_error("SKN_ERR_NOT_FINITE", "vertex 1", "NaN", skn.bind, small { positions = { 0, 0, 0, 0, 0 / 0, 0, 0, 2, 0 } })
expect_error(INVALID, "weight_mode: dqs is not one of", "a bad name", skn.bind, small { weight_mode = "dqs" })

local rig = skn.bind(small())
local pose = rig:pose()
local out = skn.floats(9)
for k = 0, 8 do out[k] = -7 end
local untouched = ffi.string(out, 36)
expect_error(INVALID, "positions: 8 floats, the range needs 9", "a short output", rig.skin, rig, pose,
  { positions = ffi.new("float[8]") })
expect_error(INVALID, "normals: 8 floats", "short normals out", rig.skin, rig, pose, { positions = out, normals = ffi.new("float[8]") })
expect_error(INVALID, "tangents: this rig was bound without tangents", "tangents", rig.skin, rig, pose, { positions = out, tangents = true })
expect_error("SKN_ERR_INDEX_OUT_OF_RANGE", nil, "a range past the end", rig.skin, rig, pose,
  { positions = out, first_vertex = 2, vertex_count = 2 })
expect_error(INVALID, "first_vertex: -1 is not an index", "first_vertex -1", rig.skin, rig, pose, { positions = out, first_vertex = -1 })
expect_error(INVALID, "method: DQ is not one of", "method DQ", rig.skin, rig, pose, { positions = out, method = "DQ" })
expect_error("SKN_ERR_UNSUPPORTED", nil, "COR without triangles", rig.skin, rig, pose, { positions = out, method = "cor" })
expect(ffi.string(out, 36) == untouched, "refused calls wrote nothing")
local p = rig:skin(pose, { positions = out, method = "DQS", first_vertex = 1, vertex_count = 1 })
expect(p == out and out[4] == 1 and out[0] == -7 and out[8] == -7, "a range writes its vertices only")
expect_error(INVALID, "local: 9 floats, not 10 a joint", "9 floats of transform", pose.set_local, pose, 0, skn.floats(9))
expect_error("SKN_ERR_INDEX_OUT_OF_RANGE", nil, "3 transforms for 2 joints", pose.set_local, pose, 0, skn.floats(30))
expect_error(INVALID, "dst: 31 floats, the range needs 32", "a short palette", pose.palette, pose, "mat4", skn.floats(31))
expect(pose:palette("mat4")[15] == 1, "a palette")
expect_error(INVALID, "rig: 1 poses of it are alive", "a rig before its pose", rig.destroy, rig)
pose:destroy()
expect_error(INVALID, "pose: used after destroy()", "a destroyed pose", rig.skin, rig, pose, { positions = out })
rig:destroy()
expect_error(INVALID, "rig: used after destroy()", "a destroyed rig", rig.pose, rig)
expect_error(INVALID, "pose: expected a skn pose", "a table as pose", rig.skin, skn.bind(small()), {}, {})
expect_error("SKN_ERR_IO", nil, "a missing file", skn.open, "/nonexistent.gltf")
expect_error("SKN_ERR_PARSE", nil, "a GLB of length 1", skn.open_memory, "glTF\2\0\0\0\1\0\0\0\236\255\255\255JSON{")
local doc = skn.open("data/gltf/SimpleSkin/glTF-Embedded/SimpleSkin.gltf")
expect_error(INVALID, "blend_weights: 3 elements", "blend weights of 3", doc.bind, doc, { blend_weights = { 0, 0, 0 } })
expect(doc:find_animation("no such") == nil and doc:animation(0).channel_count > 0, "animations")
expect(doc:triangles(0)[0] ~= nil, "triangles")
doc:close()
expect_error(INVALID, "gltf: used after destroy()", "a closed document", doc.primitive, doc, 0)
expect(skn.glsl_source { method = "cor", normals = true, joint_count = 2 }:find("skn_skin_normal") ~= nil, "GLSL")
expect_error(INVALID, nil, "5 influences", skn.glsl_source, { influences = 5 })

-- finalisers: poses and rigs left to the collector, a rig freed after its poses
for _ = 1, 5 do collectgarbage() end -- what the tests above dropped
local before = skn.live_handles()
for _ = 1, 50 do
  local r = skn.bind(small())
  r:pose()
  r:pose():set_model(1, { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 3, 0, 1 })
end
expect(skn.live_handles() == before + 150, "150 handles made: " .. skn.live_handles() - before)
for _ = 1, 5 do collectgarbage() end
expect(skn.live_handles() == before, "the collector freed them all: " .. skn.live_handles() - before .. " left")

print(string.format("lua: %d passed, %d failed", passed, failed))
os.exit(failed == 0 and 0 or 1)
