"""mindspore.dataset.vision and .transforms against MindSpore 2.10: every literal was measured on 2.10
(CPU) with the same image."""
import numpy as np
import pytest

import graphcell as ms
import graphcell.dataset as ds
from graphcell.dataset import transforms, vision

IMG = np.array([[[0, 37, 74], [111, 148, 185], [222, 3, 40], [77, 114, 151]], [[188, 225, 6], [43, 80, 117], [154, 191, 228], [9, 46, 83]], [[120, 157, 194], [231, 12, 49], [86, 123, 160], [197, 234, 15]]], np.uint8)   # (3, 4, 3): np.arange(36) * 37 % 256

# name -> (transform, dtype, shape, 2.10's output)
MEASURED = {
    "center": (vision.CenterCrop((4, 3)), "uint8", (4, 3, 3),
           [[[0, 0, 0], [0, 0, 0], [0, 0, 0]], [[0, 37, 74], [111, 148, 185], [222, 3, 40]], [[188, 225, 6], [43, 80, 117], [154, 191, 228]], [[120, 157, 194], [231, 12, 49], [86, 123, 160]]]),
    "pad": (vision.Pad([1, 0, 2, 1], fill_value=7), "uint8", (4, 7, 3),
           [[[7, 7, 7], [0, 37, 74], [111, 148, 185], [222, 3, 40], [77, 114, 151], [7, 7, 7], [7, 7, 7]], [[7, 7, 7], [188, 225, 6], [43, 80, 117], [154, 191, 228], [9, 46, 83], [7, 7, 7], [7, 7, 7]], [[7, 7, 7], [120, 157, 194], [231, 12, 49], [86, 123, 160], [197, 234, 15], [7, 7, 7], [7, 7, 7]], [[7, 7, 7], [7, 7, 7], [7, 7, 7], [7, 7, 7], [7, 7, 7], [7, 7, 7], [7, 7, 7]]]),
    "rsz_nn": (vision.Resize((2, 6), vision.Inter.NEAREST), "uint8", (2, 6, 3),
           [[[0, 37, 74], [0, 37, 74], [111, 148, 185], [222, 3, 40], [222, 3, 40], [77, 114, 151]], [[188, 225, 6], [188, 225, 6], [43, 80, 117], [154, 191, 228], [154, 191, 228], [9, 46, 83]]]),
    "norm": (vision.Normalize([100, 50, 120], [20, 40, 60]), "float32", (3, 4, 3),
           [[[-5.0, -0.32499998807907104, -0.7666670083999634], [0.550000011920929, 2.450000047683716, 1.0833330154418945], [6.099999904632568, -1.1749999523162842, -1.3333330154418945], [-1.149999976158142, 1.600000023841858, 0.5166670083999634]], [[4.400000095367432, 4.375, -1.899999976158142], [-2.8499999046325684, 0.75, -0.05000000074505806], [2.700000047683716, 3.5250000953674316, 1.7999999523162842], [-4.550000190734863, -0.10000000149011612, -0.6166669726371765]], [[1.0, 2.674999952316284, 1.2333329916000366], [6.550000190734863, -0.949999988079071, -1.1833330392837524], [-0.699999988079071, 1.8250000476837158, 0.6666669845581055], [4.849999904632568, 4.599999904632568, -1.75]]]),
    "resc": (vision.Rescale(1 / 127.5, -1.0), "float32", (3, 4, 3),
           [[[-1.0, -0.7098039984703064, -0.4196079969406128], [-0.1294119954109192, 0.16078400611877441, 0.450980007648468], [0.7411770224571228, -0.9764710068702698, -0.686273992061615], [-0.3960779905319214, -0.10588199645280838, 0.18431399762630463]], [[0.4745100140571594, 0.764706015586853, -0.9529410004615784], [-0.6627449989318848, -0.37254899740219116, -0.08235300332307816], [0.20784300565719604, 0.49803900718688965, 0.7882350087165833], [-0.9294120073318481, -0.6392160058021545, -0.34902000427246094]], [[-0.05882300063967705, 0.23137299716472626, 0.521569013595581], [0.8117650151252747, -0.9058820009231567, -0.6156859993934631], [-0.32548999786376953, -0.035294000059366226, 0.2549020051956177], [0.5450980067253113, 0.8352940082550049, -0.8823530077934265]]]),
    "tot": (vision.ToTensor(), "float32", (3, 3, 4),
           [[[0.0, 0.4352940022945404, 0.8705880045890808, 0.3019610047340393], [0.7372549772262573, 0.16862699389457703, 0.6039220094680786, 0.035294000059366226], [0.47058799862861633, 0.9058820009231567, 0.33725500106811523, 0.7725489735603333]], [[0.1450980007648468, 0.5803920030593872, 0.01176500041037798, 0.4470590054988861], [0.8823530077934265, 0.313726007938385, 0.749019980430603, 0.18039199709892273], [0.6156859993934631, 0.04705899953842163, 0.48235300183296204, 0.9176470041275024]], [[0.2901960015296936, 0.7254899740219116, 0.1568630039691925, 0.5921570062637329], [0.02352900058031082, 0.4588240087032318, 0.8941180109977722, 0.32548999786376953], [0.7607839703559875, 0.19215700030326843, 0.6274510025978088, 0.058823999017477036]]]),
}

RESIZE_LINEAR = [[[18, 55, 92], [166, 75, 112], [101, 95, 132]], [[77, 114, 65], [139, 99, 136], [74, 85, 122]], [[164, 201, 24], [99, 136, 173], [33, 70, 107]], [[149, 160, 112], [134, 95, 131], [120, 157, 66]], [[138, 133, 170], [158, 67, 104], [178, 215, 39]]]   # vision.Resize((5, 3)), uint8


@pytest.mark.parametrize("name", sorted(MEASURED))
def test_vision_transform_matches_mindspore(name):
    transform, dtype, shape, expected = MEASURED[name]
    got = transform(IMG)
    assert (str(got.dtype), got.shape) == (dtype, shape)
    np.testing.assert_allclose(got, np.array(expected, got.dtype), rtol=1e-6, atol=1e-6)


def test_resize_linear_is_opencvs_fixed_point():
    got = vision.Resize((5, 3))(IMG)
    expected = np.array(RESIZE_LINEAR, np.uint8)
    np.testing.assert_array_equal(got, expected)            # bit-exact, the clamped border rows too
    # float images: the same taps, no rounding
    f = vision.Resize((5, 3))(IMG.astype(np.float32))
    assert f.dtype == np.float32 and np.abs(f - got).max() <= 1.0
    assert vision.Resize(2)(IMG).shape == (2, 2, 3)          # shorter side to 2, int(4 * 2 / 3) = 2


def test_general_transforms():
    # measured on 2.10
    assert transforms.TypeCast(ms.int32)(np.array([1.7, -2.7])).tolist() == [1, -2]
    hot = transforms.OneHot(3)(np.array([2, 0], np.int64))
    assert hot.dtype == np.int64 and hot.tolist() == [[0, 0, 1], [1, 0, 0]]
    smooth = transforms.OneHot(4, 0.2)(np.array(1, np.int32))
    assert smooth.dtype == np.float64
    np.testing.assert_allclose(smooth, [0.05, 0.85, 0.05, 0.05])
    # 2.10 drops the last class with smoothing (OneHot(5, 0.2)(4) is all 0.04); graphcell does not
    np.testing.assert_allclose(transforms.OneHot(5, 0.2)(np.array(4, np.int32)), [0.04] * 4 + [0.84])
    both = transforms.Compose([vision.Rescale(1 / 255.0, 0), vision.HWC2CHW()])(IMG)
    np.testing.assert_allclose(both, vision.ToTensor()(IMG), atol=1e-7)
    assert vision.HWC2CHW()(IMG[:, :, 0]).shape == (3, 4)    # a 2-D image is returned as it is (2.10)


def test_random_transforms_repeat_under_a_seed_and_crop_inside_the_padding():
    ms.set_seed(7)
    first = [vision.RandomCrop(4, padding=1)(IMG) for _ in range(3)]
    ms.set_seed(7)
    again = [vision.RandomCrop(4, padding=1)(IMG) for _ in range(3)]
    assert all(np.array_equal(a, b) for a, b in zip(first, again)) and first[0].shape == (4, 4, 3)
    assert np.array_equal(vision.RandomHorizontalFlip(1.0)(IMG), IMG[:, ::-1])
    assert np.array_equal(vision.RandomVerticalFlip(0.0)(IMG), IMG)
    with pytest.raises(RuntimeError, match="larger than the image"):
        vision.RandomCrop(6)(IMG)
    assert vision.RandomCrop(6, pad_if_needed=True)(IMG).shape == (6, 6, 3)


def test_the_quickstart_pipeline():
    """MindSpore's quickstart: Rescale, Normalize, HWC2CHW on the images, TypeCast on the labels."""
    images = np.stack([IMG[:, :, :1]] * 4)
    data = ds.NumpySlicesDataset({"image": images, "label": np.arange(4)}, shuffle=False)
    data = data.map([vision.Rescale(1.0 / 255.0, 0), vision.Normalize(mean=(0.1307,), std=(0.3081,)), vision.HWC2CHW()],
                    "image").map(transforms.TypeCast(ms.int32), "label").batch(2)
    batch = next(data.create_dict_iterator())
    assert batch["image"].shape == (2, 1, 3, 4) and batch["image"].dtype == ms.float32 and batch["label"].dtype == ms.int32
    # 2.10: (0 / 255 - 0.1307) / 0.3081
    np.testing.assert_allclose(batch["image"].asnumpy()[0, 0, 0, 0], -0.42421, atol=1e-5)
