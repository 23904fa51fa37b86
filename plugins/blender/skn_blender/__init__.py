"""skn for Blender: skin a mesh by its armature with libskn — Linear, Dual
Quaternion (Blender's "Preserve Volume"), a per-vertex Blend of the two, or
optimized Centers of Rotation — live, standing in for the Armature modifier
with its rules (vertex groups, envelopes, B-Bones, the mask, shape keys
before it, the modifiers after it, moving objects): on the CPU through a
Geometry Nodes modifier in the Armature modifier's slot, or on the GPU in the
viewport's vertex shader, only the palette uploaded per pose.

Object > Parent > With Automatic Weights (skn): Blender's Ctrl+P > With
Automatic Weights, the weights computed by libskn (bone heat, or closest bone).

Scripting: skn_blender.skin_object(obj, method="LINEAR"|"DQS"|"BLEND"|"COR",
depsgraph=None) returns the (n, 3) float32 world-space positions of a mesh as
its armature deforms it, equal to the Armature modifier's for LINEAR and DQS.
"""
bl_info = {
    "name": "skn Skinning",
    "author": "skn",
    "version": (1, 5, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Mesh Data > skn Skinning",
    "description": "Linear, dual quaternion, blended and centers-of-rotation skinning with libskn",
    "category": "Animation",
}

from . import core  # noqa: E402
from .core import skin_object  # noqa: E402,F401

try:  # the UI needs bpy; core and skin_object work wherever the skn package does
    from . import driven, ui, weights
except ImportError:  # pragma: no cover
    driven = ui = weights = None


def register():
    import bpy
    driven.register()
    ui.register()
    bpy.utils.register_class(weights.SKN_OT_parent_with_weights)
    bpy.types.VIEW3D_MT_object_parent.append(weights.menu)


def unregister():
    import bpy
    bpy.types.VIEW3D_MT_object_parent.remove(weights.menu)
    bpy.utils.unregister_class(weights.SKN_OT_parent_with_weights)
    ui.unregister()
    driven.unregister()
