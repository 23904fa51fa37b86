"""blender_screenshots.py — the README's pictures of the add-on: the keyed arm
of tests/blender bound with skn in GPU (viewport) mode by Centers of
Rotation at its twisted pose, in a window: the whole window (the viewport
drawn by skn's shader, the panel beside it), and the panel alone.

  blender -b --factory-startup --python-expr "import bpy; bpy.ops.wm.save_as_mainfile(filepath='/tmp/e.blend')"
  xvfb-run -a -s "-screen 0 1280x1500x24" blender --factory-startup /tmp/e.blend \\
      --python scripts/blender_screenshots.py -- build/skn_blender.zip WINDOW.png PANEL.png

(a file named on the command line keeps the splash screen away).
"""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "blender"))
from arm_scene import arm_mesh, arm_rig  # noqa: E402

import bpy  # noqa: E402
from mathutils import Quaternion  # noqa: E402

zip_path, window_png, panel_png = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="skn_blender")
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
rig = arm_rig("Arm", Quaternion((0, 0, 1), math.radians(60)) @ Quaternion((0, 1, 0), math.radians(150)))
obj = arm_mesh("Arm", rig, 25, 16)
for o in bpy.context.view_layer.objects:
    o.select_set(False)
obj.select_set(True)
bpy.context.view_layer.objects.active = obj
obj.skn.mode, obj.skn.method = "GPU", "COR"
bpy.context.scene.frame_set(10)


def areas(kind):
    return [a for a in bpy.context.screen.areas if a.type == kind]


def setup():
    for area in areas("PROPERTIES"):
        area.spaces[0].context = "DATA"
    with bpy.context.temp_override(object=obj, active_object=obj):
        bpy.ops.skn.bind()
    view = max(areas("VIEW_3D"), key=lambda a: a.width * a.height)
    region = next(r for r in view.regions if r.type == "WINDOW")
    r3d = view.spaces[0].region_3d
    r3d.view_rotation = Quaternion((0.78, 0.48, 0.2, 0.33)).normalized()
    r3d.view_location, r3d.view_distance = (1.1, 0.4, 0.3), 3.2
    props = areas("PROPERTIES")[0]
    with bpy.context.temp_override(area=props, region=next(r for r in props.regions if r.type == "WINDOW")):
        bpy.ops.view2d.scroll_down(deltay=2000)  # the panel is the data tab's last
    return None


def shoot():
    bpy.ops.screen.screenshot(filepath=window_png)
    with bpy.context.temp_override(area=areas("PROPERTIES")[0]):
        bpy.ops.screen.screenshot_area(filepath=panel_png)
    bpy.ops.wm.quit_blender()


bpy.app.timers.register(setup, first_interval=1.0)
bpy.app.timers.register(shoot, first_interval=3.0)
