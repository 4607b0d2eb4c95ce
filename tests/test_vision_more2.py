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


BX = ((np.arange(5 * 7 * 3) * 97 + 13) % 256).astype(np.uint8).reshape(5, 7, 3)
BOXES = np.array([[1.5, 1, 3, 2, 7], [0, 2, 5.5, 3, 1]], np.float32)
# transform(BX, BOXES) -> (image[:, :, 0] flattened, boxes), measured on 2.10
BBOX_CASES = {
    'RandomHorizontalFlipWithBBox(1.0)(X, BB.copy())' : ([223, 188, 153, 118, 83, 48, 13, 212, 177, 142, 107, 72, 37, 2, 201, 166, 131, 96, 61, 26, 247, 190, 155, 120, 85, 50, 15, 236, 179, 144, 109, 74, 39, 4, 225], [[2.5, 1.0, 3.0, 2.0, 7.0], [1.5, 2.0, 5.5, 3.0, 1.0]]) ,
    'RandomVerticalFlipWithBBox(1.0)(X, BB.copy())' : ([225, 4, 39, 74, 109, 144, 179, 236, 15, 50, 85, 120, 155, 190, 247, 26, 61, 96, 131, 166, 201, 2, 37, 72, 107, 142, 177, 212, 13, 48, 83, 118, 153, 188, 223], [[1.5, 2.0, 3.0, 2.0, 7.0], [0.0, 0.0, 5.5, 3.0, 1.0]]) ,
    'ResizeWithBBox(4)(X, BB.copy())' : ([19, 68, 117, 165, 214, 82, 54, 103, 152, 201, 196, 40, 89, 138, 187, 182, 26, 75, 124, 173], [[1.0714285373687744, 0.800000011920929, 2.142857074737549, 1.600000023841858, 7.0], [0.0, 1.600000023841858, 3.9285714626312256, 2.4000000953674316, 1.0]]) ,
    'ResizeWithBBox((3, 5), Inter.NEAREST)(X, BB.copy())' : ([13, 48, 83, 153, 188, 2, 37, 72, 142, 177, 236, 15, 50, 120, 155], [[1.0714285373687744, 0.6000000238418579, 2.142857074737549, 1.2000000476837158, 7.0], [0.0, 1.2000000476837158, 3.9285714626312256, 1.8000000715255737, 1.0]]) ,
    'RandomCropWithBBox((7, 9), padding=1)(X, BB.copy())' : ([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 13, 48, 83, 118, 153, 188, 223, 0, 0, 2, 37, 72, 107, 142, 177, 212, 0, 0, 247, 26, 61, 96, 131, 166, 201, 0, 0, 236, 15, 50, 85, 120, 155, 190, 0, 0, 225, 4, 39, 74, 109, 144, 179, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], [[2.5, 2.0, 3.0, 2.0, 7.0], [1.0, 3.0, 5.5, 3.0, 1.0]]) ,
    'RandomResizedCropWithBBox((10, 14), (1, 1), (1.4, 1.4))(X, BB.copy())' : ([13, 22, 39, 57, 74, 92, 109, 127, 144, 162, 179, 197, 214, 223, 10, 19, 36, 54, 71, 89, 106, 124, 141, 159, 176, 194, 211, 220, 5, 13, 31, 48, 66, 83, 101, 118, 136, 153, 171, 188, 206, 215, 63, 56, 41, 43, 60, 78, 95, 113, 130, 148, 165, 183, 200, 209, 186, 146, 68, 37, 55, 72, 90, 107, 125, 142, 160, 177, 195, 204, 244, 189, 78, 32, 49, 67, 84, 102, 119, 137, 154, 172, 189, 198, 239, 183, 73, 26, 44, 61, 79, 96, 114, 131, 149, 166, 184, 193, 233, 178, 67, 21, 38, 56, 73, 91, 108, 126, 143, 161, 178, 187, 228, 172, 62, 15, 33, 50, 68, 85, 103, 120, 138, 155, 173, 182, 225, 170, 59, 13, 30, 48, 65, 83, 100, 118, 135, 153, 170, 179], [[3.0, 2.0, 6.0, 4.0, 7.0], [0.0, 4.0, 11.0, 6.0, 1.0]]) ,
    'BoundingBoxAugment(V.Resize((2, 2)), 1.0)(X, BB.copy())' : ([13, 48, 83, 118, 153, 188, 223, 2, 46, 72, 98, 142, 177, 212, 84, 85, 90, 96, 97, 166, 201, 73, 75, 82, 89, 91, 155, 190, 62, 64, 73, 83, 85, 144, 179], [[1.5, 1.0, 3.0, 2.0, 7.0], [0.0, 2.0, 5.5, 3.0, 1.0]]) ,
    'BoundingBoxAugment(V.Invert(), 1.0)(X, BB.copy())' : ([13, 48, 83, 118, 153, 188, 223, 2, 218, 183, 148, 142, 177, 212, 8, 26, 61, 96, 124, 166, 201, 19, 240, 205, 170, 135, 155, 190, 30, 251, 216, 181, 146, 144, 179], [[1.5, 1.0, 3.0, 2.0, 7.0], [0.0, 2.0, 5.5, 3.0, 1.0]]) ,
}
SLICE_PAD = [[13, 48, 83, 2, 37, 72, 247, 26, 61], [118, 153, 188, 107, 142, 177, 96, 131, 166], [223, 9, 9, 212, 9, 9, 201, 9, 9], [236, 15, 50, 225, 4, 39, 9, 9, 9], [85, 120, 155, 74, 109, 144, 9, 9, 9], [190, 9, 9, 179, 9, 9, 9, 9, 9]]      # SlicePatches(2, 3, PAD, 9)(BX) patches' channel 0
SLICE_DROP = [[13, 48, 2, 37], [83, 118, 72, 107], [153, 188, 142, 177], [247, 26, 236, 15], [61, 96, 50, 85], [131, 166, 120, 155]]     # SlicePatches(2, 3, DROP)(BX)


@pytest.mark.parametrize("expr", sorted(BBOX_CASES))
def test_bbox_transforms_match_2_10(expr):
    from graphcell.dataset.vision import Inter  # noqa: F401 - used by the expressions
    boxes = BOXES.copy()
    image, got = eval("V." + expr.replace("BB.copy()", "boxes").replace("(X,", "(BX,"))
    want_image, want_boxes = BBOX_CASES[expr]
    assert image[:, :, 0].ravel().tolist() == want_image
    np.testing.assert_allclose(got, want_boxes, rtol=1e-6)
    assert got.dtype == np.float32
    np.testing.assert_array_equal(boxes, BOXES)          # the caller's boxes are not changed


def test_bbox_crop_clips_and_drops():
    config.set_seed(2)
    for _ in range(5):
        image, boxes = V.RandomCropWithBBox((3, 3))(BX, BOXES.copy())
        assert image.shape == (3, 3, 3)
        assert (boxes[:, :2] >= 0).all() and (boxes[:, 0] + boxes[:, 2] <= 3).all() and (boxes[:, 1] + boxes[:, 3] <= 3).all()
    # a window over the whole image keeps every box (measured)
    np.testing.assert_array_equal(V.RandomCropWithBBox((5, 7))(BX, BOXES.copy())[1], BOXES)
    for boxes, message in [(np.array([[1, 1, 9, 2]], np.float32), "BoundingBox: bounding boxes is out of bounds of the image, "
                            "as image width: 7, bbox width coordinate: 10.000000, and image height: 5, bbox height coordinate: 3.000000"),
                           (np.array([[-1, 1, 2, 2]], np.float32), "BoundingBox: the coordinates of the bounding boxes has negative "
                            "value, got: (-1.000000,1.000000)."),
                           (np.array([[1, 1, 2]], np.float32), "BoundingBox: bounding boxes should be have at least 4 features, but got: 3"),
                           (np.array([1, 1, 2, 2], np.float32), "BoundingBox: bounding boxes should have to be two-dimensional matrix "
                            "at least, but got 1 dimension.")]:
        with pytest.raises(RuntimeError) as info:
            V.ResizeWithBBox(4)(BX, boxes)
        assert str(info.value) == message


def test_slice_patches_match_2_10():
    assert [p[:, :, 0].ravel().tolist() for p in V.SlicePatches(2, 3, V.SliceMode.PAD, 9)(BX)] == SLICE_PAD
    assert [p[:, :, 0].ravel().tolist() for p in V.SlicePatches(2, 3, V.SliceMode.DROP)(BX)] == SLICE_DROP
    assert isinstance(V.SlicePatches(1, 1)(BX), np.ndarray)                  # one patch is the array (measured)
    with pytest.raises(ValueError, match=r"Input num_height is not within the required interval of \[1, 2147483647\]."):
        V.SlicePatches(0, 2)
    with pytest.raises(ValueError, match=r"Input fill_value is not within the required interval of \[0, 255\]."):
        V.SlicePatches(2, 2, fill_value=256)


def test_policy_compositions():
    # RandomSelectSubpolicy with one sub-policy of certain transforms: Invert, then HorizontalFlip (measured)
    got = V.RandomSelectSubpolicy([[(V.Invert(), 1.0), (V.HorizontalFlip(), 1.0)]])(BX)
    np.testing.assert_array_equal(got, 255 - BX[:, ::-1])
    with pytest.raises(ValueError, match="policy can not be empty."):
        V.RandomSelectSubpolicy([])
    with pytest.raises(ValueError, match=r"Input prob of \(op, prob\) policy\[0\]\[0\] is not within the required interval"):
        V.RandomSelectSubpolicy([[(V.Invert(), 1.5)]])
    with pytest.raises(ValueError, match="num_ops is greater than transforms list size."):
        V.UniformAugment([V.Invert(), V.HorizontalFlip()], 3)
    with pytest.raises(ValueError, match="Input num_ops must be greater than 0."):
        V.UniformAugment([V.Invert()], 0)
    config.set_seed(4)
    uniform = V.UniformAugment([V.Invert(), V.VerticalFlip()], 2)
    seen = {uniform(BX).tobytes() for _ in range(40)}
    options = {BX.tobytes(), (255 - BX).tobytes(), BX[::-1].tobytes(), (255 - BX[::-1]).tobytes()}
    assert seen == options                     # each chosen transform applied or not


def test_augment_policies_apply_the_deterministic_ops():
    from graphcell.dataset.vision import augment_policies as A
    rng = np.random.default_rng(1)
    image = rng.integers(0, 256, (12, 14, 3)).astype(np.uint8)
    table = A.magnitudes(31, 12, 14)
    candidates = {A.apply_op(image, op, float(table[op][9] * sign), Inter.NEAREST, (0, 0, 0)).tobytes()
                  for op in A._RAND_OPS for sign in ((1, -1) if op in A.SIGNED else (1,))}
    config.set_seed(7)
    augment = V.RandAugment(1, 9, 31)
    outputs = [augment(image).tobytes() for _ in range(30)]
    assert set(outputs) <= candidates and len(set(outputs)) > 5
    config.set_seed(7)
    again = V.RandAugment(1, 9, 31)
    assert [again(image).tobytes() for _ in range(30)] == outputs                             # seeded: repeats
    # ShearX at bin 9 of 31 (0.09): measured on 2.10 among RandAugment(1, 9, 31)'s outputs
    assert A.apply_op(image, "ShearX", 0.09, Inter.NEAREST, (0, 0, 0)).tobytes() in candidates
    for policy in V.AutoAugmentPolicy:
        out = V.AutoAugment(policy)(image)
        assert out.shape == image.shape and out.dtype == np.uint8
    assert V.TrivialAugmentWide()(image).shape == image.shape
    with pytest.raises(TypeError, match="Argument policy with value imagenet is not of type"):
        V.AutoAugment("imagenet")
    with pytest.raises(ValueError, match=r"Input num_magnitude_bins is not within the required interval of \[2, 16777216\]."):
        V.RandAugment(num_magnitude_bins=1)
    with pytest.raises(RuntimeError, match="AutoAugment: input tensor is not in shape of <H,W,C>, but got rank: 2"):
        V.AutoAugment()(image[:, :, 0])


def test_lighting_and_mixup():
    np.testing.assert_array_equal(V.RandomLighting(0.0)(BX), BX)                 # alpha 0: the image (measured)
    config.set_seed(1)
    shifted = V.RandomLighting(0.5)(BX).astype(np.int64) - BX
    inner = (BX > 20) & (BX < 235)
    assert len({tuple(shifted[i, j]) for i, j in zip(*np.nonzero(inner.all(-1)))}) == 1      # one shift per image
    with pytest.raises(ValueError, match=r"Input alpha is not within the required interval of \[0, 16777216\]."):
        V.RandomLighting(-1)
    images, labels = np.stack([BX, BX[::-1]]), np.eye(2, dtype=np.float32)
    mixed, mixed_labels = V.MixUp(2, 0.5)(images, labels)
    assert mixed.dtype == np.float64 and mixed_labels.dtype == np.float64            # measured
    np.testing.assert_allclose(mixed_labels.sum(1), 1.0)
    lam = mixed_labels[0, 0] if mixed_labels[0, 0] != 1 else 1.0
    np.testing.assert_allclose(mixed[0], lam * images[0] + (1 - lam) * images[int(mixed_labels[0, 1] > 0 and lam != 1)], atol=1e-9)
    across = V.MixUp(2, 0.5, False)
    first, _ = across(images, labels)
    np.testing.assert_array_equal(first, images)                                    # the first batch passes (measured)
    with pytest.raises(ValueError, match="Input alpha must be greater than 0."):
        V.MixUp(2, 0)
