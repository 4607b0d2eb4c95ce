"""More vision transforms against MindSpore 2.10 (CPU): Perspective, the BICUBIC / AREA warps, the
augmentation policies, the bounding-box transforms. Every literal was measured on 2.10 with the same
input (uint8 bit-exact, float32 to 1e-5); random transforms are checked over their ranges and at
single-value ranges against the deterministic transform."""
import numpy as np
import pytest

from graphcell.dataset import config, vision as V
from graphcell.dataset.vision import Inter

X = ((np.arange(8 * 9 * 3) * 97 + 13) % 256).astype(np.uint8).reshape(8, 9, 3)
B = ((np.arange(16 * 70) * 37 + 5) % 256).astype(np.uint8).reshape(16, 70)      # wide: several warp blocks
S, E = [[0, 0], [8, 0], [8, 7], [0, 7]], [[1, 0], [7, 1], [8, 6], [0, 7]]
S2, E2 = [[2, 1], [60, 3], [65, 15], [0, 14]], [[0, 0], [69, 0], [69, 15], [-3, 12]]


def checksum(out):
    """Two sums that any changed value moves."""
    out = out.astype(np.int64).ravel()
    return [int(out.sum()), int((out * (np.arange(out.size) % 97)).sum())]


# Perspective(S, E, mode)(X)[:, :, 1], measured on 2.10
PERSPECTIVE_X = {
    'NEAREST': [0, 110, 145, 0, 0, 0, 0, 0, 0, 0, 169, 204, 239, 18, 88, 64, 134, 0, 0, 31, 7, 42, 77, 147, 182, 252, 0, 90, 90, 125, 101, 136, 206, 241, 20, 0, 149, 149, 184, 219, 254, 33, 103, 138, 0, 149, 184, 243, 22, 57, 92, 162, 197, 232, 208, 243, 243, 22, 116, 151, 186, 0, 35, 11, 46, 46, 81, 116, 0, 0, 0, 0],
    'BILINEAR': [8, 110, 110, 93, 43, 0, 0, 0, 0, 49, 182, 177, 197, 75, 82, 90, 134, 0, 45, 106, 38, 68, 100, 138, 179, 223, 0, 36, 79, 106, 139, 173, 161, 174, 47, 0, 81, 140, 171, 204, 197, 83, 68, 117, 51, 137, 196, 177, 118, 116, 86, 129, 180, 154, 144, 168, 112, 60, 99, 139, 184, 96, 35, 11, 33, 51, 63, 73, 69, 61, 19, 0],
    'BICUBIC': [6, 110, 107, 91, 46, 0, 0, 0, 0, 53, 211, 185, 208, 51, 78, 96, 134, 0, 48, 115, 0, 49, 106, 138, 178, 255, 0, 21, 68, 110, 140, 188, 173, 196, 3, 0, 79, 145, 179, 241, 225, 54, 38, 119, 50, 155, 247, 196, 103, 110, 66, 124, 197, 174, 155, 210, 114, 31, 103, 165, 225, 95, 35, 11, 18, 45, 76, 82, 73, 63, 16, 0],
}
# checksum(Perspective(S2, E2, mode)(B)), measured on 2.10
PERSPECTIVE_B = {
    'NEAREST': [133421, 6386034],
    'BILINEAR': [133286, 6394276],
    'BICUBIC': [133870, 6429320],
}
PERSPECTIVE_FLOAT = [0.0250017698854208, -0.016338512301445007, 0.8289616703987122, 0.37796226143836975, -0.017599031329154968, 1.1054208278656006, 0.5492033958435059, -0.0038906848058104515, 0.8840579986572266, 0.6064555644989014, 0.25891321897506714, 0.8249852657318115, 0.8815630674362183, 0.17716720700263977, 0.06334708631038666]      # Perspective(S, E, BICUBIC)(X / 255)[:, :, 1] every 5th value
ROTATE_BICUBIC = [5, 5, 3, 6, 5, 11, 0, 2, 5, 5, 5, 5, 5, 5, 0, 51, 66, 69, 49, 8, 0, 5, 5, 5, 5, 0, 49, 152, 136, 131, 133, 118, 53, 0, 0, 5, 2, 5, 214, 251, 170, 243, 201, 227, 216, 172, 12, 6, 0, 45, 146, 42, 0, 100, 54, 120, 149, 108, 0, 12, 33, 81, 93, 80, 87, 72, 78, 56, 68, 64, 75, 31, 135, 192, 160, 165, 154, 155, 143, 156, 139, 158, 113, 3, 20, 156, 249, 179, 255, 230, 179, 205, 231, 224, 52, 0, 0, 0, 35, 0, 130, 20, 13, 39, 78, 3, 0, 5, 5, 5, 5, 7, 54, 108, 115, 96, 85, 5, 5, 5, 5, 5, 5, 3, 0, 45, 149, 207, 46, 0, 5, 5, 5, 5, 5, 5, 5, 0, 10, 76, 0, 5, 5, 5]     # Rotate(-33, BICUBIC, True, None, (3, 4, 5))(X)[:, :, 0]
AFFINE_BICUBIC = [8, 5, 73, 140, 35, 52, 62, 64, 48, 3, 42, 46, 72, 106, 118, 132, 154, 180, 30, 116, 130, 158, 163, 190, 235, 212, 211, 93, 213, 195, 179, 246, 92, 159, 104, 13, 238, 182, 70, 0, 64, 20, 39, 81, 86, 116, 21, 58, 73, 88, 115, 135, 145, 158, 101, 124, 129, 140, 155, 195, 181, 250, 201, 96, 148, 201, 246, 231, 187, 22, 77, 65]     # Affine(17, [0.1, 0.05], 1.1, [3, 2], BICUBIC, (9, 8, 7))(X)[:, :, 2]
AFFINE_BICUBIC_B = [32659, 1486075]   # checksum(Affine(-120, [-0.2, 0.3], 0.7, [-10, 20], BICUBIC)(B))


def test_perspective_matches_2_10():
    for mode, want in PERSPECTIVE_X.items():
        got = V.Perspective(S, E, getattr(Inter, mode))(X)
        assert got.shape == X.shape and got.dtype == np.uint8
        assert got[:, :, 1].ravel().tolist() == want, mode
    for mode, want in PERSPECTIVE_B.items():
        assert checksum(V.Perspective(S2, E2, getattr(Inter, mode))(B)) == want, mode
    # AREA and PILCUBIC warp as BILINEAR (measured)
    for mode in (Inter.AREA, Inter.PILCUBIC):
        np.testing.assert_array_equal(V.Perspective(S, E, mode)(X), V.Perspective(S, E)(X))
    got = V.Perspective(S, E, Inter.BICUBIC)(X.astype(np.float32) / 255)
    np.testing.assert_allclose(got[:, :, 1].ravel()[::5], PERSPECTIVE_FLOAT, atol=1e-5)
    # degenerate points: OpenCV's solve gives zeros, every pixel reads (0, 0) (measured)
    np.testing.assert_array_equal(V.Perspective(S, [[0, 0]] * 4, Inter.NEAREST)(X), np.broadcast_to(X[0, 0], X.shape))


def test_perspective_errors():
    for make, kind, message in [
            (lambda: V.Perspective(S[:3], S), TypeError, "start_points should be a list or tuple of length 4."),
            (lambda: V.Perspective(S, [[0, 0, 1]] * 4), TypeError, "end_points[0] should be a list or tuple of length 2."),
            (lambda: V.Perspective([[0, 0.5]] * 4, S), TypeError,
             "Argument start_points[0][1] with value 0.5 is not of type [<class 'int'>], but got <class 'float'>."),
            (lambda: V.Perspective(S, S, Inter.ANTIALIAS)(X), TypeError, "img should be PIL image.")]:
        with pytest.raises(kind) as info:
            make()
        assert str(info.value).startswith(message)


def test_bicubic_and_area_warps_match_2_10():
    assert V.Rotate(-33, Inter.BICUBIC, True, None, (3, 4, 5))(X)[:, :, 0].ravel().tolist() == ROTATE_BICUBIC
    assert V.Affine(17, [0.1, 0.05], 1.1, [3, 2], Inter.BICUBIC, (9, 8, 7))(X)[:, :, 2].ravel().tolist() == AFFINE_BICUBIC
    assert checksum(V.Affine(-120, [-0.2, 0.3], 0.7, [-10, 20], Inter.BICUBIC)(B)) == AFFINE_BICUBIC_B
    # AREA warps as BILINEAR (measured on 2.10 for Rotate and Affine)
    np.testing.assert_array_equal(V.Rotate(20, Inter.AREA)(X), V.Rotate(20, Inter.BILINEAR)(X))
    np.testing.assert_array_equal(V.Affine(5, [0.1, 0], 0.9, 0, Inter.AREA)(X), V.Affine(5, [0.1, 0], 0.9, 0, Inter.BILINEAR)(X))
    with pytest.raises(RuntimeError, match="Rotate: Invalid InterpolationMode"):
        V.Rotate(10, Inter.PILCUBIC)(X)
    with pytest.raises(RuntimeError, match="Affine: Invalid InterpolationMode, only support Linear, Nearest, Cubic and Area."):
        V.Affine(10, [0, 0], 1, 0, Inter.PILCUBIC)(X)
    config.set_seed(3)
    np.testing.assert_array_equal(V.RandomRotation((20, 20), Inter.BICUBIC)(X), V.Rotate(20, Inter.BICUBIC)(X))
    np.testing.assert_array_equal(V.RandomAffine((7, 7), resample=Inter.BICUBIC)(X),
                                  V.Affine(7, [0, 0], 1.0, 0, Inter.BICUBIC)(X))


def test_random_perspective_pil():
    image = pytest.importorskip("PIL.Image")
    pil = image.fromarray(X)
    config.set_seed(5)
    assert np.array_equal(np.asarray(V.RandomPerspective(0.0, 1.0)(pil)), X)     # no distortion: the image
    start, end = V.RandomPerspective(0.5, 1.0).corners(9, 8)
    assert start == [[0, 0], [8, 0], [8, 7], [0, 7]]
    assert all(0 <= end[i][0] <= 2 and 0 <= end[i][1] <= 2 for i in (0,))
    with pytest.raises(TypeError, match="img should be PIL image"):
        V.RandomPerspective(prob=1.0)(X)
