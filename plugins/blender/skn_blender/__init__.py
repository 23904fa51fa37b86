"""skn for Blender: skin a mesh by its armature with libskn — Linear, Dual
Quaternion (Blender's "Preserve Volume"), a per-vertex Blend of the two, or
optimized Centers of Rotation — live, standing in for the Armature modifier
with its rules (vertex groups, envelopes, B-Bones, the mask, shape keys
before it, the modifiers after it, moving objects): on the CPU through a
Geometry Nodes modifier in the Armature modifier's slot, or on the GPU in the
viewport's vertex shader, only the palette uploaded per pose.

Scripting: skn_blender.skin_object(obj, method="LINEAR"|"DQS"|"BLEND"|"COR",
depsgraph=None) returns the (n, 3) float32 world-space positions of a mesh as
its armature deforms it, equal to the Armature modifier's for LINEAR and DQS.
"""
bl_info = {
    "name": "skn Skinning",
    "author": "skn",
    "version": (1, 4, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Mesh Data > skn Skinning",
    "description": "Linear, dual quaternion, blended and centers-of-rotation skinning with libskn",
    "category": "Animation",
}

from . import core  # noqa: E402
from .core import skin_object  # noqa: E402,F401

try:  # the UI needs bpy; core and skin_object work wherever the skn package does
    from . import ui
except ImportError:  # pragma: no cover
    ui = None


def register():
    ui.register()


def unregister():
    ui.unregister()
