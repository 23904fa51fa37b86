"""png_compare.py A.png B.png MAX_SHARE MAX_MEAN — two pictures of the same
size that agree: the share of pixels with a channel differing by more than
16 is at most MAX_SHARE, and the mean absolute difference per channel at
most MAX_MEAN. `skn render --gpu` against `skn render`: the GPU's
rasterizer covers edge pixels by its own rules, so edges may differ, the
faces and the shading may not."""
import sys

from png_check import decode


def main():
    (wa, ha, a), (wb, hb, b) = decode(sys.argv[1]), decode(sys.argv[2])
    max_share, max_mean = float(sys.argv[3]), float(sys.argv[4])
    assert (wa, ha) == (wb, hb), f"sizes differ: {wa}x{ha} and {wb}x{hb}"
    differing, total = 0, 0
    for ra, rb in zip(a, b):
        for x in range(wa):
            d = [abs(ra[x * 3 + c] - rb[x * 3 + c]) for c in range(3)]
            total += sum(d)
            differing += max(d) > 16
    share, mean = differing / (wa * ha), total / (wa * ha * 3)
    print(f"{differing} of {wa * ha} pixels differ by more than 16 ({share:.4%}), mean difference {mean:.3f}")
    assert share <= max_share and mean <= max_mean, "the pictures differ"


if __name__ == "__main__":
    main()
