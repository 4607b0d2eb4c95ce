"""vision.Resize against MindSpore 2.10 (CPU) for every interpolation it runs on numpy images, and
the other vision / transforms parity checks: every literal was measured on 2.10 with the same input."""
import numpy as np
import pytest

from graphcell.dataset import vision

A = (np.arange(105) * 37 % 256).astype(np.uint8).reshape(5, 7, 3)      # HWC, 3 channels
B = (np.arange(24) * 53 % 256).astype(np.uint8).reshape(6, 4)          # 2-D

# (interpolation, image, size) -> 2.10's uint8 output, flattened
RESIZE_UINT8 = {
    ("NEAREST", "A", (3, 4)): [0, 37, 74, 111, 148, 185, 77, 114, 151, 43, 80, 117, 9, 46, 83, 120, 157, 194, 86, 123, 160, 52, 89, 126, 27, 64, 101, 138, 175, 212, 104, 141, 178, 70, 107, 144],
    ("NEAREST", "B", (9, 5)): [0, 0, 53, 106, 159, 0, 0, 53, 106, 159, 212, 212, 9, 62, 115, 168, 168, 221, 18, 71, 168, 168, 221, 18, 71, 124, 124, 177, 230, 27, 80, 80, 133, 186, 239, 80, 80, 133, 186, 239, 36, 36, 89, 142, 195],
    ("LINEAR", "A", (3, 4)): [44, 81, 119, 207, 20, 57, 177, 214, 27, 115, 152, 189, 60, 97, 134, 222, 35, 72, 192, 229, 42, 130, 167, 204, 74, 111, 149, 87, 50, 87, 207, 95, 57, 145, 182, 113],
    ("LINEAR", "B", (9, 5)): [0, 37, 79, 122, 159, 106, 53, 58, 100, 137, 204, 92, 49, 70, 108, 175, 182, 105, 41, 78, 146, 183, 162, 101, 49, 117, 154, 196, 174, 62, 87, 124, 167, 196, 203, 58, 95, 138, 180, 217, 36, 73, 115, 158, 195],
    ("LINEAR", "B", (3, 2)): [69, 111, 173, 87, 85, 191],
    ("CUBIC", "A", (3, 4)): [35, 89, 126, 216, 5, 45, 188, 227, 17, 107, 144, 198, 51, 105, 142, 232, 21, 61, 203, 243, 32, 122, 159, 213, 78, 120, 157, 78, 39, 76, 221, 89, 48, 138, 187, 117],
    ("CUBIC", "B", (9, 5)): [0, 30, 85, 130, 166, 116, 30, 35, 111, 144, 236, 88, 19, 65, 109, 181, 211, 93, 5, 85, 141, 212, 190, 85, 19, 111, 144, 228, 198, 43, 86, 121, 175, 209, 212, 51, 86, 131, 187, 242, 29, 64, 112, 159, 194],
    ("AREA", "A", (3, 4)): [51, 88, 125, 168, 59, 96, 139, 176, 67, 110, 147, 184, 66, 103, 140, 183, 73, 110, 154, 191, 81, 124, 161, 198, 80, 117, 154, 109, 88, 125, 168, 117, 96, 139, 176, 125],
    ("AREA", "B", (9, 5)): [0, 40, 80, 119, 159, 106, 50, 58, 97, 137, 212, 60, 36, 75, 115, 168, 208, 120, 31, 71, 146, 186, 162, 105, 49, 124, 164, 204, 179, 27, 80, 120, 160, 199, 239, 58, 98, 138, 177, 217, 36, 76, 116, 155, 195],
    ("AREA", "B", (2, 2)): [110, 88, 106, 170],
    ("AREA", "B", (4, 3)): [63, 65, 131, 175, 92, 72, 123, 189, 127, 64, 130, 196],
    ("PILCUBIC", "A", (3, 4)): [57, 87, 124, 169, 64, 105, 129, 170, 65, 110, 147, 177, 72, 102, 139, 189, 79, 120, 144, 190, 80, 125, 162, 197, 83, 117, 154, 116, 96, 135, 161, 117, 100, 140, 173, 124],
    ("PILCUBIC", "A", (8, 5)): [25, 76, 113, 178, 64, 106, 125, 113, 101, 120, 162, 48, 113, 150, 201, 29, 80, 117, 182, 68, 110, 129, 117, 105, 124, 166, 52, 117, 154, 205, 36, 87, 124, 189, 75, 117, 136, 124, 112, 131, 173, 59, 124, 161, 212, 41, 92, 129, 194, 80, 122, 141, 129, 117, 136, 178, 64, 129, 166, 217, 46, 98, 135, 205, 86, 128, 148, 136, 123, 142, 189, 69, 135, 171, 229, 52, 103, 140, 210, 91, 133, 154, 142, 128, 147, 194, 75, 140, 177, 233, 67, 110, 147, 121, 101, 140, 129, 117, 135, 157, 105, 88, 147, 192, 125, 78, 114, 151, 54, 107, 144, 110, 98, 139, 163, 38, 96, 151, 203, 44],
}

# (interpolation, size) -> every 7th value of 2.10's output for A / 7 in float32
RESIZE_FLOAT = {
    ("LINEAR", (3, 4)): [6.3749995, 30.589283, 19.0892868, 18.625, 7.125, 16.1011887],
    ("LINEAR", (8, 9)): [0.0, 11.9365082, 21.5714283, 11.4285736, 5.8482141, 17.7847233, 23.8958321, 17.2767906, 11.937499, 28.4771805, 29.9851151, 23.3660755, 12.7410717, 6.1220255, 7.6299624, 24.1696434, 18.8303585, 12.2113104, 18.3224239, 30.2589302, 24.9196434, 14.7767849, 24.4117107, 36.3482132, 18.3422623, 20.8660717, 14.2470207, 5.1428571, 17.0793667, 26.7142849, 16.5714302],
    ("CUBIC", (3, 4)): [5.0022092, 32.4686546, 20.2224483, 17.4918385, 5.5025721, 16.6836433],
    ("CUBIC", (8, 9)): [-1.1634619, 12.2854996, 21.4520683, 8.7139778, 4.6904025, 18.1393661, 25.6545486, 14.5678444, 10.9263563, 30.149374, 32.9440002, 24.8672886, 11.2210112, 3.1443062, 5.9389377, 25.1619434, 21.4773884, 10.3906746, 17.9058647, 31.3548164, 27.4819241, 14.7438269, 24.693718, 38.9652557, 19.9852333, 20.9797802, 13.2785559, 4.218112, 17.6670723, 26.8336449, 14.0955524],
    ("AREA", (3, 4)): [7.3102045, 25.167347, 19.938776, 17.7755108, 12.5469398, 17.8653069],
    ("AREA", (8, 9)): [0.0, 12.2653055, 21.5714283, 10.6734695, 5.8000002, 18.0653057, 25.106123, 16.4734707, 11.8571424, 30.0408173, 31.1632652, 22.5306129, 13.6408167, 5.0081639, 6.1306124, 24.3142853, 19.4408169, 10.8081636, 17.8489799, 30.1142864, 25.7551041, 14.8571424, 24.1632652, 36.4285698, 17.8775501, 20.9142857, 14.5469398, 5.1428571, 17.4081631, 26.7142849, 15.8163271],
}


@pytest.mark.parametrize("key", sorted(RESIZE_UINT8), ids=lambda k: f"{k[0]}-{k[1]}-{k[2][0]}x{k[2][1]}")
def test_resize_uint8_is_bit_exact(key):
    mode, name, size = key
    img = A if name == "A" else B
    got = vision.Resize(size, vision.Inter[mode])(img)
    assert got.dtype == np.uint8 and got.shape == size + img.shape[2:]
    np.testing.assert_array_equal(got.ravel(), RESIZE_UINT8[key])


def test_resize_float32_and_one_channel():
    for (mode, size), expected in RESIZE_FLOAT.items():
        got = vision.Resize(size, vision.Inter[mode])(A.astype(np.float32) / 7)
        assert got.dtype == np.float32 and got.shape == size + (3,)
        np.testing.assert_allclose(got.ravel()[::7], expected, rtol=1e-5, atol=1e-5)
    # <H, W, 1> is the 2-D result with its channel axis kept
    for mode in ("NEAREST", "LINEAR", "CUBIC", "AREA"):
        got = vision.Resize((9, 5), vision.Inter[mode])(B[:, :, None])
        assert got.shape == (9, 5, 1)
        np.testing.assert_array_equal(got.ravel(), RESIZE_UINT8[(mode, "B", (9, 5))])


def test_resize_errors_as_mindspore():
    with pytest.raises(RuntimeError, match="PILCUBIC only supports image with 3 channels, but got: <6,4>"):
        vision.Resize((3, 2), vision.Inter.PILCUBIC)(B)
    with pytest.raises(NotImplementedError, match="ANTIALIAS"):
        vision.Resize((3, 2), vision.Inter.ANTIALIAS)


def test_transforms_submodules_import_as_in_mindspore():
    # 2.10 has vision.transforms, vision.utils and transforms.transforms (not c_/py_transforms)
    import graphcell.dataset.transforms.transforms as tt
    import graphcell.dataset.vision.transforms as vt
    from graphcell.dataset import transforms
    from graphcell.dataset.vision import transforms as vt2
    from graphcell.dataset.vision.utils import Border, Inter
    assert vt is vt2 and vt.Resize is vision.Resize and tt.TypeCast is transforms.TypeCast
    assert Inter is vision.Inter and Border is vision.Border
    assert Inter.LINEAR is Inter.BILINEAR and Inter(3).name == "BICUBIC"     # 2.10's canonical names


# (mode, image) -> 2.10's ConvertColor output, flattened
CONVERT_COLOR = {
("RGB2GRAY", "A"): [30, 141, 73, 107, 189, 73, 184, 39, 150, 82, 116, 198, 82, 193, 48, 159, 91, 125, 207, 91, 202, 57, 168, 100, 134, 216, 100, 211, 66, 177, 32, 143, 75, 109, 191],
    ("BGR2GRAY", "A"): [44, 155, 39, 121, 155, 87, 198, 53, 164, 48, 130, 164, 96, 207, 62, 173, 57, 139, 173, 105, 216, 71, 182, 66, 148, 182, 114, 225, 80, 191, 46, 157, 41, 123, 157],
    ("BGR2RGBA", "A"): [74, 37, 0, 255, 185, 148, 111, 255, 40, 3, 222, 255, 151, 114, 77, 255, 6, 225, 188, 255, 117, 80, 43, 255, 228, 191, 154, 255, 83, 46, 9, 255, 194, 157, 120, 255, 49, 12, 231, 255, 160, 123, 86, 255, 15, 234, 197, 255, 126, 89, 52, 255, 237, 200, 163, 255, 92, 55, 18, 255, 203, 166, 129, 255, 58, 21, 240, 255, 169, 132, 95, 255, 24, 243, 206, 255, 135, 98, 61, 255, 246, 209, 172, 255, 101, 64, 27, 255, 212, 175, 138, 255, 67, 30, 249, 255, 178, 141, 104, 255, 33, 252, 215, 255, 144, 107, 70, 255, 255, 218, 181, 255, 110, 73, 36, 255, 221, 184, 147, 255, 76, 39, 2, 255, 187, 150, 113, 255, 42, 5, 224, 255, 153, 116, 79, 255, 8, 227, 190, 255],
    ("GRAY2BGRA", "B"): [0, 0, 0, 255, 53, 53, 53, 255, 106, 106, 106, 255, 159, 159, 159, 255, 212, 212, 212, 255, 9, 9, 9, 255, 62, 62, 62, 255, 115, 115, 115, 255, 168, 168, 168, 255, 221, 221, 221, 255, 18, 18, 18, 255, 71, 71, 71, 255, 124, 124, 124, 255, 177, 177, 177, 255, 230, 230, 230, 255, 27, 27, 27, 255, 80, 80, 80, 255, 133, 133, 133, 255, 186, 186, 186, 255, 239, 239, 239, 255, 36, 36, 36, 255, 89, 89, 89, 255, 142, 142, 142, 255, 195, 195, 195, 255],
    ("BGR2RGB", "B"): [0, 0, 0, 53, 53, 53, 106, 106, 106, 159, 159, 159, 212, 212, 212, 9, 9, 9, 62, 62, 62, 115, 115, 115, 168, 168, 168, 221, 221, 221, 18, 18, 18, 71, 71, 71, 124, 124, 124, 177, 177, 177, 230, 230, 230, 27, 27, 27, 80, 80, 80, 133, 133, 133, 186, 186, 186, 239, 239, 239, 36, 36, 36, 89, 89, 89, 142, 142, 142, 195, 195, 195],
}


def test_convert_color_matches_mindspore():
    for (mode, name), expected in CONVERT_COLOR.items():
        got = vision.ConvertColor(vision.ConvertMode["COLOR_" + mode])(A if name == "A" else B)
        assert got.dtype == np.uint8
        np.testing.assert_array_equal(got.ravel(), expected)
    assert vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY)(A).shape == (5, 7)
    gray = vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY)(A / np.float32(7))
    np.testing.assert_allclose(gray.ravel()[::5], [4.307857036590576, 10.450715065002441, 16.593570709228516, 22.736427307128906, 28.87928581237793, 30.852998733520508, 4.593571186065674], rtol=1e-6)
    with pytest.raises(RuntimeError, match="needs an image of 3 or 4 channels"):
        vision.ConvertColor(vision.ConvertMode.COLOR_RGB2GRAY)(B)
    with pytest.raises(TypeError, match="is not of type"):
        vision.ConvertColor(6)


# (Rotate's arguments, image, shape) -> 2.10's output, flattened (OpenCV's warpAffine)
ROTATE = {
    ("Rotate(30)", "A", (5, 7, 3)): [0, 0, 0, 0, 0, 0, 77, 114, 151, 188, 225, 6, 52, 89, 126, 163, 200, 237, 0, 0, 0, 111, 148, 185, 222, 3, 40, 86, 123, 160, 197, 234, 15, 206, 243, 24, 61, 98, 135, 181, 218, 255, 9, 46, 83, 120, 157, 194, 240, 21, 58, 95, 132, 169, 215, 252, 33, 70, 107, 144, 190, 227, 8, 9, 46, 83, 129, 166, 203, 240, 21, 58, 104, 141, 178, 104, 141, 178, 224, 5, 42, 79, 116, 153, 0, 0, 0, 27, 64, 101, 138, 175, 212, 2, 39, 76, 113, 150, 187, 0, 0, 0, 0, 0, 0],
    ("Rotate(30, resample=vision.Inter.BILINEAR)", "A", (5, 7, 3)): [0, 0, 0, 51, 10, 20, 71, 100, 104, 191, 228, 9, 68, 105, 110, 134, 171, 208, 69, 84, 99, 63, 86, 109, 199, 36, 73, 137, 78, 115, 143, 180, 89, 148, 185, 62, 86, 123, 160, 161, 195, 228, 50, 87, 124, 151, 116, 153, 217, 30, 67, 95, 132, 169, 197, 234, 47, 111, 148, 113, 140, 177, 138, 11, 45, 78, 104, 141, 178, 202, 79, 116, 175, 84, 121, 149, 150, 127, 191, 53, 65, 56, 79, 87, 8, 23, 38, 56, 93, 130, 147, 159, 196, 71, 36, 73, 77, 106, 135, 54, 13, 23, 0, 0, 0],
    ("Rotate(30, expand=True, fill_value=(7, 8, 9))", "A", (8, 9, 3)): [9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 154, 191, 228, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 188, 225, 6, 188, 225, 6, 52, 89, 126, 163, 200, 237, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 222, 3, 40, 77, 114, 151, 197, 234, 15, 52, 89, 126, 172, 209, 246, 172, 209, 246, 9, 8, 7, 0, 37, 74, 111, 148, 185, 231, 12, 49, 86, 123, 160, 95, 132, 169, 206, 243, 24, 70, 107, 144, 181, 218, 255, 9, 8, 7, 9, 8, 7, 9, 46, 83, 129, 166, 203, 240, 21, 58, 104, 141, 178, 215, 252, 33, 79, 116, 153, 79, 116, 153, 9, 8, 7, 9, 8, 7, 18, 55, 92, 129, 166, 203, 249, 30, 67, 249, 30, 67, 113, 150, 187, 224, 5, 42, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 27, 64, 101, 147, 184, 221, 2, 39, 76, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 36, 73, 110, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7, 9, 8, 7],
    ("Rotate(-45, center=(1, 2), resample=vision.Inter.BILINEAR, fill_value=(1, 2, 3))", "B", (6, 4)): [3, 76, 13, 12, 101, 163, 27, 80, 151, 221, 55, 101, 159, 176, 40, 90, 166, 172, 35, 14, 170, 205, 20, 3],
}


ROTATE_FIRST_BILINEAR = np.array(ROTATE[("Rotate(30, resample=vision.Inter.BILINEAR)", "A", (5, 7, 3))],
                                 np.float32).reshape(5, 7, 3)


def test_rotate_matches_mindspore():
    for (args, name, shape), expected in ROTATE.items():
        got = eval("vision." + args)(A if name == "A" else B)       # noqa: S307 - a literal table above
        assert got.dtype == np.uint8 and got.shape == shape
        np.testing.assert_array_equal(got.ravel(), expected)
    # a float image: the same 1/32-step weights, unrounded (2.10: the uint8 result within rounding)
    f = vision.Rotate(30, resample=vision.Inter.BILINEAR)(A.astype(np.float32))
    assert f.dtype == np.float32 and np.abs(f - ROTATE_FIRST_BILINEAR).max() <= 0.5 + 1e-4


def test_random_resized_crop_shapes_and_onehot_rank():
    from graphcell.dataset import transforms
    assert vision.RandomResizedCrop((3, 4))(A).shape == (3, 4, 3)          # 2.10's shapes
    assert vision.RandomResizedCrop(6)(B).shape == (6, 6)
    with pytest.raises(RuntimeError, match="Only support scalar or 1D input, got rank: 2"):
        transforms.OneHot(4)(np.array([[1, 3], [0, 2]]))
