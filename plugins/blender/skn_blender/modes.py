"""CPU or GPU (viewport) mode: which deforms a bound mesh now, and Blender's own draw of it
hidden while the shader draws it.

CPU (the default) writes skn's result, so everything in Blender sees the deformed mesh. GPU skins
in the viewport's vertex shader (viewport.py): per pose only the palette goes to the GPU, and
Blender's own draw of the object is hidden (Display As: Bounds, so it can still be clicked,
outlined and saved) until the deformation is given back. Render and Apply take the CPU path in
both modes, and so does a mesh GPU mode cannot draw as the modifier would (modifiers below the
armature's, more than 16 joints a vertex, other objects reading its mesh), saying so; with
modifiers above, the shader draws their result, skinned. Shape keys and the mask it draws
(viewport.py).
"""

import bpy
import gpu
import numpy

from . import live, stack, state, takeover, viewport


def gpu_drawn(obj):
    """Whether the viewport shader draws obj now (GPU mode, no render running, and a binding the
    shader can draw as the modifier would)."""
    if not (obj.skn.bound and obj.skn.mode == "GPU" and not state.rendering[0]) or takeover.modifier_deforms(obj) or \
            not obj.skn.modifier_viewport:  # (the user's modifier off in the viewport: nothing deformed drawn)
        return False
    return not gpu_refusal(obj, state.bindings.get(obj.name))


def gpu_refusal(obj, b):
    """Why GPU mode skins obj on the CPU ("" where the shader draws it as the modifier would):
    what the binding cannot draw, or modifiers below skn's, which the shader's draw would skip."""
    why = b.gpu_refusal() if b is not None else ""
    failed = state.draw_failures.get(obj.name)
    if not why and failed is not None and failed[0] is b:
        why = failed[1]
    below = [m.name for m in takeover.below(obj) if m.show_viewport]
    if not why and below:
        why = (f'GPU mode draws the mesh without the modifiers below the armature\'s ("{below[0]}"'
               f'{" and more" if len(below) > 1 else ""}): skinned on the CPU')
    readers = geometry_readers(obj)
    if not why and readers:
        more = f" and {len(readers) - 1} more" if len(readers) > 1 else ""
        why = (f"GPU mode leaves the mesh at rest for Blender, and {readers[0]}{more} read{'' if more else 's'} "
               f"it: skinned on the CPU")
    return why


# Modifiers that read the Object a setting names as a mesh (its evaluated vertices), by setting
GEOMETRY_SETTINGS = {"SURFACE_DEFORM": ("target",), "SHRINKWRAP": ("target", "auxiliary_target"),
                     "MESH_DEFORM": ("object",), "DATA_TRANSFER": ("object",), "BOOLEAN": ("object",),
                     "ARRAY": ("start_cap", "end_cap"), "PARTICLE_INSTANCE": ("object",),
                     "VERTEX_WEIGHT_PROXIMITY": ("target",)}


def geometry_readers(obj):
    """What outside obj reads its deformed mesh, in the panel's words: objects parented to its
    vertices; other objects' modifiers that take it as a mesh (GEOMETRY_SETTINGS, a Geometry Nodes
    modifier's Object input, or its node group's Object Info or Collection Info: node_group_readers);
    constraints on objects or bones that target its vertex groups or its surface (Shrinkwrap). GPU mode leaves the mesh at rest for Blender, so these would read the
    rest (a vertex-parented earring left where the rest puts it, 0.98 off on the tests' arm).
    And what draws it again elsewhere (instancers): Blender draws an instance as it draws the
    object, which in GPU mode is its bounds (the mesh at rest), where the shader draws only the
    object itself: an instance was a box.
    Found among the IDs that use obj (bpy.data.user_map), once per update (handlers.on_update)."""
    seen = state.readers.get(obj.name)
    if seen is not None and seen[0] == state.generation[0]:
        return seen[1]
    out = []
    held = holding_collections(obj)
    used_by = bpy.data.user_map(subset=[obj] + held)  # (one scan of the file's IDs for both)
    for user in sorted(used_by.get(obj, ()), key=lambda u: u.name):  # (a set)
        if not isinstance(user, bpy.types.Object) or user == obj or user.get(stack.OWNER) is not None:
            continue
        if user.parent == obj and user.parent_type in ("VERTEX", "VERTEX_3"):
            out.append(f"{user.name} (parented to its vertices)")
        for m in user.modifiers:
            if any(getattr(m, name, None) == obj for name in GEOMETRY_SETTINGS.get(m.type, ())) or \
                    (m.type == "NODES" and any(m[k] == obj for k in m.keys())):
                out.append(f'{user.name}\'s "{m.name}" modifier')
        bones = [(f"{user.name}'s bone {pb.name}", pb.constraints) for pb in user.pose.bones] if user.pose else []
        for owner, constraints in [(user.name, user.constraints)] + bones:
            out += [f'{owner}\'s "{c.name}" constraint' for c in constraints if getattr(c, "target", None) == obj
                    and (c.type == "SHRINKWRAP" or getattr(c, "subtarget", ""))]
    trees = [u for key in [obj] + held for u in used_by.get(key, ()) if isinstance(u, bpy.types.NodeTree)]
    out += node_group_readers(trees)
    out += instancers(obj, held, used_by)
    state.readers[obj.name] = (state.generation[0], out)
    return out


def node_group_readers(trees):
    """The Geometry Nodes modifiers whose node group reads obj through `trees` (those among its
    users, and its collections': an Object Info or Collection Info node naming it), directly or
    through groups nested in theirs, in the panel's words."""
    reached, objects, todo = set(), set(), list(trees)
    while todo:  # the groups that use these, up to the objects whose modifiers use them
        batch = [t for t in todo if t not in reached]
        reached.update(batch)
        users = [u for found in (bpy.data.user_map(subset=batch) if batch else {}).values() for u in found]
        objects.update(u for u in users if isinstance(u, bpy.types.Object))
        todo = [u for u in users if isinstance(u, bpy.types.NodeTree)]
    return [f'{o.name}\'s "{m.name}" modifier (its node group {m.node_group.name})'
            for o in sorted(objects, key=lambda o: o.name) if o.get(stack.OWNER) is None
            for m in o.modifiers if m.type == "NODES" and m.node_group in reached]


def instancers(obj, held, used_by):
    """What draws obj again elsewhere, in the panel's words: an object instancing a collection that
    holds it, at any depth (Add > Collection Instance); a particle system that renders it, or such
    a collection, as its particles; its parent, instancing it at its vertices or faces. `held`:
    holding_collections(obj); `used_by`: bpy.data.user_map of obj and those."""
    out = []
    for c in sorted(held, key=lambda c: c.name):
        out += [f"{u.name} (an instance of the collection {c.name})" for u in sorted(used_by.get(c, ()), key=lambda u: u.name)
                if isinstance(u, bpy.types.Object) and u.instance_type == "COLLECTION" and u.instance_collection == c]
    settings = [p for p in used_by.get(obj, ()) if isinstance(p, bpy.types.ParticleSettings)
                and p.render_type == "OBJECT" and p.instance_object == obj]
    settings += [u for c in held for u in used_by.get(c, ()) if isinstance(u, bpy.types.ParticleSettings)
                 and u.render_type == "COLLECTION" and u.instance_collection == c]
    emitters = bpy.data.user_map(subset=settings) if settings else {}
    for p in settings:
        out += [f'{e.name}\'s particles "{p.name}"' for e in sorted(emitters.get(p, ()), key=lambda e: e.name)
                if isinstance(e, bpy.types.Object)]
    if obj.parent is not None and obj.parent.instance_type in ("VERTS", "FACES"):
        out.append(f"{obj.parent.name} (instancing it at its {obj.parent.instance_type.lower()})")
    return out


def holding_collections(obj):
    """The collections that hold obj and those that hold them, to the top: what an instance of any
    of them draws (a scene's own collection, which nothing instances, left out)."""
    parents = {}
    for c in bpy.data.collections:
        for child in c.children:
            parents.setdefault(child, []).append(c)
    found, todo = set(), [c for c in obj.users_collection if not c.is_embedded_data]
    while todo:
        c = todo.pop()
        if c not in found:
            found.add(c)
            todo += parents.get(c, [])
    return list(found)


# ---- Blender's own draw of the object, hidden while the shader draws it ----

def hide_draw(obj):
    """Blender draws only the object's bounds (still selectable, outlined when selected)."""
    s = obj.skn
    if not s.display_saved:
        s.display_saved = obj.display_type
    obj.display_type = "BOUNDS"


def show_draw(obj):
    s = obj.skn
    if s.display_saved:
        obj.display_type = s.display_saved
        s.display_saved = ""


def apply_mode(obj):
    """A bound object as its mode says: GPU, the rest mesh drawn by the shader; CPU (or a render
    running, or a mesh GPU mode cannot draw), skn's result written, drawn by Blender."""
    s = obj.skn
    if s.mode == "GPU":
        b = live.binding(obj)  # now, not in a draw callback: a binding for GPU mode reads the mesh's faces
        why = gpu_refusal(obj, b)
        if why and s.error != why:
            s.error = why
        elif not why and s.error.startswith("GPU mode"):
            s.error = ""
    mod = takeover.transport(obj)
    if gpu_drawn(obj):
        h, o = stack.helpers(obj)
        if h is not None and o is not None:  # it names the input helper, which Blender then evaluates:
            stack.write(o, numpy.zeros((0, 3), numpy.float32))  # on, moving nothing
        elif mod is not None and mod.show_viewport:
            mod.show_viewport = False  # the shader draws the deformation; the mesh bounds stay its rest
            state.own_changes.add(obj.data.name)  # (only for a change: a mark Blender never reports would hide an edit)
        hide_draw(obj)
    else:
        if mod is not None and mod.show_viewport != s.modifier_viewport:  # (as the user had the modifier's)
            mod.show_viewport = s.modifier_viewport
            state.own_changes.add(obj.data.name)
        show_draw(obj)
        live.refresh(obj, force=True)
    _redraw()


def _redraw():
    for window in getattr(bpy.context.window_manager, "windows", ()):
        for area in window.screen.areas:
            if area.type == "VIEW_3D":
                area.tag_redraw()


def draw_viewport():
    """The 3D viewport's draw callback: every bound GPU-mode object, skinned by the shader."""
    view, projection = gpu.matrix.get_model_view_matrix(), gpu.matrix.get_projection_matrix()
    shading = getattr(bpy.context.space_data, "shading", None)
    cull = bool(shading and shading.show_backface_culling)  # solid mode's Backface Culling, honoured
    for obj in live.bound_objects():
        if not gpu_drawn(obj) or not obj.visible_get():
            continue
        try:
            viewport.draw_object(obj, live.binding(obj), view, projection, live=obj.skn.live, cull=cull,
                                 stamp=state.generation[0])
        except Exception as e:  # the CPU skins it from now on (until bound again), saying why once
            state.draw_failures[obj.name] = (state.bindings.get(obj.name), f"GPU mode could not draw it ({e}): skinned on the CPU")
            bpy.app.timers.register(lambda name=obj.name: _fall_back(name))


def _fall_back(name):
    """After a failed draw, outside the draw callback (which may not change Blender's data)."""
    obj = bpy.data.objects.get(name)
    if obj is not None and obj.skn.bound:
        apply_mode(obj)
