"""blender_panel_screenshot.py — the README's picture of the add-on's panel:
a keyed arm bound with skn, the Properties editor on the mesh's data tab.

  xvfb-run -a -s "-screen 0 1400x1600x24" blender --factory-startup \\
      --python scripts/blender_panel_screenshot.py -- build/skn_blender.zip OUT.png
"""
import math, sys
import numpy
numpy.bool = bool
import bpy
from mathutils import Quaternion
zip_path, out = sys.argv[sys.argv.index("--") + 1:]
bpy.ops.preferences.addon_install(filepath=zip_path, overwrite=True)
bpy.ops.preferences.addon_enable(module="skn_blender")
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o)
import os
exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "blender", "addon_ui.py")).read()
     .split("def main():")[0].split("results = []")[1])  # make_arm(): the test's keyed arm
obj = make_arm("Arm")
for o in bpy.context.view_layer.objects:
    o.select_set(False)
obj.select_set(True)
bpy.context.view_layer.objects.active = obj
obj.skn.method = "DQS"
bpy.context.scene.frame_set(10)

def setup():
    for area in bpy.context.screen.areas:
        if area.type == "PROPERTIES":
            area.spaces[0].context = "DATA"
    with bpy.context.temp_override(object=obj, active_object=obj):
        bpy.ops.skn.bind()
    return None

def shoot():
    area = next(a for a in bpy.context.screen.areas if a.type == "PROPERTIES")
    with bpy.context.temp_override(area=area):
        bpy.ops.screen.screenshot_area(filepath=out)
    bpy.ops.wm.quit_blender()

bpy.app.timers.register(setup, first_interval=1.0)
bpy.app.timers.register(shoot, first_interval=3.0)
