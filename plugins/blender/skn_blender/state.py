"""What the add-on keeps between Blender's calls: nothing of it is saved with a file (the
bindings are made again on demand; after_load clears what a new file makes stale)."""

bindings = {}       # object name -> core.Binding (live.binding)
last_key = {}       # object name -> the frame key of the offsets last written (live.refresh)
own_changes = set()  # meshes whose objects' stacks skn changed: Blender's next report of them is skn's
busy = [False]      # writing the mesh triggers depsgraph updates: don't recurse
saving = [False]    # between save_pre and save_post the armature deforms as saved: leave it
rendering = [False]  # between render_init and render_complete/cancel GPU mode skins on the CPU
draw_handler = [None]  # the 3D viewport's draw callback (modes.draw_viewport)
draw_failures = {}  # object name -> (binding, why): the shader failed to draw that binding
bone_ids = {}  # armature (data) name -> its bones' identities at the last update (workflows.follow_renames)
readers = {}  # object name -> (generation, what reads its deformed mesh): modes.geometry_readers
stacks = {}  # object name -> its modifiers' names at the last update (workflows.merge_reparented)
render_handed = set()  # objects the modifier deforms during the render running (handlers.before_render)
generation = [0]  # counts updates and frames: a change anywhere may add a reader or disable a rig
rigs_seen = {}  # (armature name, render) -> (generation, whether Blender poses it): takeover.rig_evaluated
call_errors = {}  # object name -> the error a handler's call last showed in its panel (handlers._each_bound)
skip_next = set()  # object names whose "skn" modifier gives nothing in the next frame's first pass (handlers)
skipped = {}  # object name -> its result helper scaled to 0 for this frame's first pass (handlers.before_frame)
in_frame = {}  # a result helper as the view layer evaluates it (its address) -> its object's name (driven.sync)
skinned_in_frame = {}  # object name -> the matrix it was placed at, skinned inside this frame's evaluation (driven.getter): on_frame leaves it
drivers = {}  # object name -> (what its driver names, whether skn made its animation data): driven.sync
framing = [False]  # the frame handler at work: an update it causes (an evaluation it asks for) is the frame's
bound_seen = [None, ()]  # (bpy.data.objects' count, the names of the bound meshes then): live.bound_objects
