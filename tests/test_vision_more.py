"""The vision colour, crop, erase and pad transforms against MindSpore 2.10 (CPU): every literal below was
measured on 2.10 with the same input (uint8 outputs bit-exact, float32 to 1e-5)."""
import numpy as np
import pytest

from graphcell.dataset import config, vision as V

X = ((np.arange(60) * 97 + 13) % 256).astype(np.uint8).reshape(4, 5, 3)
XF = X.astype(np.float32) / 255
RAMP = np.arange(256, dtype=np.uint8).reshape(16, 16)
RAMP3 = np.stack([RAMP, RAMP[::-1], RAMP.T], -1)

# transform -> 2.10's output on X, flattened
X_CASES = {
    'AdjustBrightness(1.7)': [22, 187, 255, 82, 246, 255, 141, 255, 36, 201, 255, 95, 255, 255, 155, 255, 49, 214, 255, 109, 255, 3, 168, 255, 63, 228, 255, 122, 255, 17, 182, 255, 76, 241, 255, 136, 255, 31, 196, 255, 90, 255, 255, 150, 255, 44, 209, 255, 104, 255, 255, 163, 255, 58, 223, 255, 117, 255, 12, 177],
    'AdjustContrast(1.7)': [0, 97, 255, 0, 156, 255, 51, 216, 0, 110, 255, 5, 170, 255, 64, 229, 0, 124, 255, 18, 183, 0, 78, 243, 0, 138, 255, 32, 197, 0, 92, 255, 0, 151, 255, 46, 211, 0, 105, 255, 0, 165, 255, 59, 224, 0, 119, 255, 13, 178, 255, 73, 238, 0, 132, 255, 27, 192, 0, 86],
    'AdjustContrast(0.3)': [94, 123, 152, 105, 134, 163, 115, 144, 97, 126, 155, 107, 136, 165, 118, 147, 99, 128, 157, 110, 139, 91, 120, 149, 101, 130, 160, 112, 141, 93, 122, 152, 104, 133, 162, 114, 143, 96, 125, 154, 106, 135, 164, 117, 146, 98, 127, 156, 109, 138, 167, 119, 148, 100, 130, 159, 111, 140, 92, 122],
    'AdjustGamma(0.5)': [57, 168, 230, 111, 193, 249, 146, 215, 73, 174, 235, 119, 198, 253, 152, 219, 86, 179, 239, 128, 203, 22, 159, 224, 97, 185, 243, 136, 208, 50, 165, 228, 107, 191, 247, 143, 213, 68, 171, 233, 116, 196, 251, 150, 218, 81, 177, 237, 125, 201, 255, 157, 222, 93, 183, 242, 133, 206, 42, 163],
    'AdjustGamma(2.0, 1.3)': [0, 61, 219, 11, 107, 255, 35, 165, 2, 71, 236, 16, 119, 255, 42, 180, 4, 81, 254, 20, 132, 0, 50, 196, 7, 91, 255, 26, 146, 0, 58, 212, 10, 103, 255, 32, 160, 1, 67, 230, 14, 115, 255, 39, 175, 3, 77, 247, 19, 127, 255, 47, 190, 5, 87, 255, 24, 141, 0, 55],
    'AdjustHue(0.2)': [150, 13, 207, 185, 48, 242, 21, 180, 152, 56, 215, 187, 91, 250, 222, 188, 122, 29, 223, 157, 64, 139, 2, 196, 174, 37, 231, 10, 169, 141, 45, 204, 176, 80, 239, 211, 177, 112, 18, 212, 147, 53, 247, 182, 88, 163, 26, 220, 198, 61, 255, 34, 193, 165, 69, 228, 200, 166, 101, 7],
    'AdjustHue(-0.45)': [207, 173, 13, 242, 208, 48, 174, 21, 180, 209, 56, 215, 244, 91, 250, 29, 188, 145, 64, 223, 180, 196, 162, 2, 231, 197, 37, 163, 10, 169, 198, 45, 204, 233, 80, 239, 18, 177, 134, 53, 212, 169, 88, 247, 204, 220, 186, 26, 255, 221, 61, 187, 34, 193, 222, 69, 228, 7, 166, 123],
    'AdjustSaturation(1.7)': [0, 123, 255, 0, 158, 255, 48, 213, 0, 83, 248, 0, 118, 255, 13, 255, 0, 153, 255, 23, 188, 0, 112, 255, 0, 147, 255, 37, 202, 0, 72, 237, 0, 107, 255, 2, 247, 0, 142, 255, 12, 177, 255, 47, 212, 0, 136, 255, 6, 171, 255, 61, 226, 0, 96, 255, 0, 236, 0, 131],
    'AdjustSaturation(0.3)': [68, 97, 126, 103, 132, 162, 118, 147, 99, 153, 182, 134, 188, 217, 169, 118, 70, 99, 153, 105, 134, 57, 86, 116, 92, 121, 150, 107, 136, 88, 142, 171, 123, 177, 206, 158, 107, 59, 88, 142, 94, 123, 177, 129, 158, 81, 110, 140, 116, 145, 174, 131, 160, 112, 166, 195, 147, 96, 48, 77],
    'AdjustSharpness(1.7)': [13, 110, 207, 48, 145, 242, 83, 180, 21, 118, 215, 56, 153, 250, 91, 188, 29, 126, 255, 37, 175, 0, 85, 223, 0, 134, 255, 72, 169, 10, 107, 204, 45, 156, 255, 53, 204, 0, 101, 253, 26, 164, 247, 88, 185, 26, 123, 220, 61, 158, 255, 96, 193, 34, 131, 228, 69, 166, 7, 104],
    'AdjustSharpness(0.3)': [13, 110, 207, 48, 145, 242, 83, 180, 21, 118, 215, 56, 153, 250, 91, 188, 29, 126, 168, 91, 147, 57, 113, 169, 78, 134, 176, 72, 169, 10, 107, 204, 45, 128, 184, 107, 150, 73, 129, 171, 80, 136, 247, 88, 185, 26, 123, 220, 61, 158, 255, 96, 193, 34, 131, 228, 69, 166, 7, 104],
    'Invert()': [242, 145, 48, 207, 110, 13, 172, 75, 234, 137, 40, 199, 102, 5, 164, 67, 226, 129, 32, 191, 94, 253, 156, 59, 218, 121, 24, 183, 86, 245, 148, 51, 210, 113, 16, 175, 78, 237, 140, 43, 202, 105, 8, 167, 70, 229, 132, 35, 194, 97, 0, 159, 62, 221, 124, 27, 186, 89, 248, 151],
    'Posterize(3)': [0, 96, 192, 32, 128, 224, 64, 160, 0, 96, 192, 32, 128, 224, 64, 160, 0, 96, 192, 64, 160, 0, 96, 192, 32, 128, 224, 64, 160, 0, 96, 192, 32, 128, 224, 64, 160, 0, 96, 192, 32, 128, 224, 64, 160, 0, 96, 192, 32, 128, 224, 96, 192, 32, 128, 224, 64, 160, 0, 96],
    'Solarize((50, 150))': [13, 145, 207, 48, 110, 242, 172, 180, 21, 137, 215, 199, 153, 250, 164, 188, 29, 129, 223, 191, 161, 2, 156, 196, 37, 121, 231, 183, 169, 10, 148, 204, 45, 113, 239, 175, 177, 18, 140, 212, 202, 105, 247, 167, 185, 26, 132, 220, 194, 158, 255, 159, 193, 34, 124, 228, 186, 166, 7, 151],
    'Solarize(100)': [13, 145, 48, 48, 110, 13, 83, 75, 21, 137, 40, 56, 102, 5, 91, 67, 29, 129, 32, 64, 94, 2, 99, 59, 37, 121, 24, 72, 86, 10, 148, 51, 45, 113, 16, 80, 78, 18, 140, 43, 53, 105, 8, 88, 70, 26, 132, 35, 61, 97, 0, 96, 62, 34, 124, 27, 69, 89, 7, 151],
    'AutoContrast()': [11, 108, 205, 47, 144, 241, 84, 181, 11, 120, 218, 47, 157, 255, 84, 193, 23, 120, 230, 59, 157, 0, 96, 193, 36, 133, 230, 72, 170, 0, 109, 206, 36, 145, 243, 72, 182, 11, 109, 218, 48, 145, 255, 84, 182, 24, 121, 218, 61, 158, 255, 97, 195, 24, 134, 231, 61, 170, 0, 97],
    'AutoContrast(10.0)': [0, 103, 223, 30, 148, 255, 78, 193, 0, 126, 238, 28, 174, 255, 73, 222, 0, 119, 255, 44, 164, 0, 89, 209, 15, 134, 254, 63, 179, 0, 111, 224, 14, 159, 255, 59, 207, 0, 104, 255, 30, 150, 255, 75, 195, 0, 120, 240, 47, 165, 255, 95, 210, 0, 143, 255, 45, 191, 0, 90],
    'AutoContrast(10.0, [37])': [0, 103, 223, 42, 148, 255, 85, 193, 0, 127, 238, 28, 170, 255, 73, 212, 0, 119, 254, 44, 164, 0, 89, 209, 29, 134, 254, 71, 179, 0, 114, 224, 14, 156, 255, 59, 199, 0, 104, 241, 30, 150, 255, 75, 195, 15, 120, 240, 58, 165, 255, 100, 210, 0, 143, 255, 45, 185, 0, 90],
    'Equalize()': [13, 94, 201, 54, 134, 242, 94, 174, 13, 134, 215, 54, 174, 255, 94, 215, 27, 134, 242, 54, 161, 0, 81, 188, 40, 121, 228, 81, 161, 0, 121, 201, 40, 161, 242, 81, 201, 13, 121, 228, 40, 148, 255, 67, 174, 27, 107, 215, 67, 148, 255, 107, 188, 27, 148, 228, 67, 188, 0, 107],
    'GaussianBlur(3)': [113, 88, 185, 102, 106, 171, 73, 141, 136, 79, 176, 110, 98, 195, 94, 144, 107, 143, 130, 110, 146, 95, 114, 150, 98, 134, 138, 116, 152, 118, 124, 160, 123, 127, 146, 126, 131, 111, 130, 151, 99, 135, 169, 100, 136, 81, 178, 153, 100, 168, 140, 135, 139, 105, 170, 113, 108, 188, 93, 126],
    'GaussianBlur((3, 5), (0.8, 1.2))': [131, 104, 157, 119, 111, 154, 89, 123, 143, 95, 148, 127, 113, 166, 110, 129, 116, 151, 121, 119, 149, 98, 122, 140, 107, 137, 129, 125, 149, 116, 116, 151, 138, 119, 143, 136, 122, 120, 127, 142, 114, 127, 160, 115, 128, 110, 163, 136, 118, 152, 133, 130, 122, 122, 154, 106, 126, 172, 99, 131],
    'GaussianBlur(5, 0.5)': [57, 100, 197, 79, 128, 204, 72, 163, 79, 101, 198, 87, 129, 226, 78, 168, 63, 133, 175, 88, 158, 50, 102, 172, 64, 134, 183, 92, 162, 72, 114, 184, 79, 139, 191, 104, 153, 66, 118, 185, 77, 147, 213, 86, 156, 50, 147, 190, 78, 169, 197, 113, 162, 72, 148, 170, 86, 176, 59, 114],
}

# transform -> every 7th value of 2.10's float32 output on XF
FLOAT_CASES = {
    'AdjustBrightness(1.7)': [0.08666667342185974, 1.2000000476837158, 0.6066666841506958, 0.0133333345875144, 1.126666784286499, 0.5333333611488342, 1.6466667652130127, 1.0533334016799927, 0.46000003814697266],
    'AdjustContrast(1.7)': [-0.2664754092693329, 0.8468579649925232, 0.25352463126182556, -0.33980873227119446, 0.7735246419906616, 0.1801912933588028, 1.2935246229171753, 0.7001913189888, 0.10685796290636063],
    'AdjustSaturation(0.3)': [0.26799413561820984, 0.576508641242981, 0.6639596819877625, 0.22485686838626862, 0.5333713889122009, 0.6208223104476929, 0.6930168271064758, 0.5703471302986145, 0.5776851177215576],
    'AdjustGamma(0.37, 0.8)': [0.30611348152160645, 0.809420645236969, 0.6288813948631287, 0.15314559638500214, 0.7907542586326599, 0.5996070504188538, 0.9099578857421875, 0.7713057398796082, 0.5676721334457397],
    'AdjustGamma(2.0, 1.3)': [0.004392310511320829, 0.8420761227607727, 0.21522322297096252, 0.0001039600174408406, 0.7423005104064941, 0.1663360297679901, 1.0, 0.6488144397735596, 0.12373840808868408],
    'AdjustSharpness(1.7)': [0.05098039284348488, 0.7058823704719543, 0.35686275362968445, -0.2083861380815506, 0.6627451181411743, 0.20561087131500244, 0.9686274528503418, 0.6196078658103943, 0.2705882489681244],
    'GaussianBlur(3)': [0.4446180462837219, 0.5540507435798645, 0.3687938451766968, 0.37302166223526, 0.5971388220787048, 0.49631476402282715, 0.6630896925926208, 0.6567549705505371, 0.4224199056625366],
    'Invert()': [254.9490203857422, 254.2941131591797, 254.6431427001953, 254.99215698242188, 254.33724975585938, 254.686279296875, 254.0313720703125, 254.38038635253906, 254.7294158935547],
    'Solarize(0.5)': [0.05098039284348488, 254.2941131591797, 0.35686275362968445, 0.007843137718737125, 254.33724975585938, 0.3137255012989044, 254.0313720703125, 254.38038635253906, 0.2705882489681244],
}

# 2.10's uint8 gamma table is 256 * gain * (i / 255) ** gamma, truncated (AdjustGamma(0.37, 0.8) on RAMP)
GAMMA_TABLE = [0, 26, 34, 39, 44, 47, 51, 54, 56, 59, 61, 64, 66, 68, 69, 71, 73, 75, 76, 78, 79, 81, 82, 84, 85, 86, 87, 89, 90, 91, 92, 93, 95, 96, 97, 98, 99, 100, 101, 102, 103, 104, 105, 105, 106, 107, 108, 109, 110, 111, 112, 112, 113, 114, 115, 116, 116, 117, 118, 119, 119, 120, 121, 122, 122, 123, 124, 124, 125, 126, 126, 127, 128, 128, 129, 130, 130, 131, 132, 132, 133, 133, 134, 135, 135, 136, 136, 137, 138, 138, 139, 139, 140, 141, 141, 142, 142, 143, 143, 144, 144, 145, 145, 146, 146, 147, 148, 148, 149, 149, 150, 150, 151, 151, 152, 152, 153, 153, 153, 154, 154, 155, 155, 156, 156, 157, 157, 158, 158, 159, 159, 160, 160, 160, 161, 161, 162, 162, 163, 163, 164, 164, 164, 165, 165, 166, 166, 167, 167, 167, 168, 168, 169, 169, 169, 170, 170, 171, 171, 171, 172, 172, 173, 173, 173, 174, 174, 175, 175, 175, 176, 176, 177, 177, 177, 178, 178, 178, 179, 179, 180, 180, 180, 181, 181, 181, 182, 182, 182, 183, 183, 184, 184, 184, 185, 185, 185, 186, 186, 186, 187, 187, 187, 188, 188, 188, 189, 189, 189, 190, 190, 190, 191, 191, 191, 192, 192, 192, 193, 193, 193, 194, 194, 194, 195, 195, 195, 196, 196, 196, 197, 197, 197, 198, 198, 198, 199, 199, 199, 199, 200, 200, 200, 201, 201, 201, 202, 202, 202, 203, 203, 203, 203, 204, 204, 204]
EQUALIZE_RAMP = [207, 210, 213, 216, 219, 223, 226, 229, 232, 236, 239, 242, 245, 249, 252, 255, 155, 158, 161, 165, 168, 171, 174, 178, 181, 184, 187, 190, 194, 197, 200, 203, 103, 107, 110, 113, 116, 119, 123, 126, 129, 132, 136, 139, 142, 145, 148, 152, 52, 55, 58, 61, 65, 68, 71, 74, 77, 81, 84, 87, 90, 94, 97, 100, 0, 3, 6, 10, 13, 16, 19, 23, 26, 29, 32, 36, 39, 42, 45, 48]                 # Equalize() on RAMP3[:5, :, 1]
# pixels whose AdjustSaturation(1.7) blend is a .5 tie in exact arithmetic (OpenCV's fused rounding decides)
TIES = [[[8, 248, 128], [11, 251, 176], [14, 254, 224], [16, 224, 1], [29, 237, 209], [35, 211, 50], [41, 217, 146], [48, 192, 3], [51, 195, 51], [54, 198, 99], [57, 201, 147], [60, 204, 195], [63, 207, 243], [69, 181, 84], [79, 191, 244], [84, 164, 69], [97, 145, 22], [99, 147, 54], [100, 148, 70], [103, 151, 118], [105, 153, 150], [106, 154, 166], [109, 157, 214], [114, 130, 39], [120, 136, 135], [122, 138, 167], [126, 142, 231], [129, 113, 24], [133, 117, 88], [135, 119, 120], [141, 125, 216], [146, 98, 41], [149, 101, 89], [150, 102, 105], [152, 104, 137], [155, 107, 185], [156, 108, 201], [158, 110, 233], [171, 91, 186], [176, 64, 11], [186, 74, 171], [192, 48, 12], [195, 51, 60], [198, 54, 108], [201, 57, 156], [204, 60, 204], [207, 63, 252], [214, 38, 109], [220, 44, 205], [226, 18, 46], [239, 31, 254], [241, 1, 31], [244, 4, 79], [247, 7, 127]]]
TIES_SATURATION = [0, 255, 104, 0, 255, 180, 0, 255, 255, 0, 255, 0, 0, 255, 235, 0, 255, 0, 0, 255, 139, 0, 238, 0, 0, 236, 0, 0, 236, 68, 0, 235, 144, 0, 235, 220, 0, 234, 255, 22, 212, 48, 19, 210, 255, 52, 189, 27, 83, 165, 0, 83, 164, 6, 82, 164, 31, 82, 164, 108, 82, 164, 158, 82, 163, 184, 81, 163, 255, 113, 140, 0, 112, 140, 138, 112, 139, 188, 111, 138, 255, 144, 116, 0, 144, 116, 67, 143, 116, 117, 142, 114, 255, 174, 92, 0, 174, 92, 72, 173, 92, 97, 173, 91, 148, 172, 91, 224, 172, 90, 249, 172, 90, 255, 202, 66, 228, 236, 45, 0, 233, 42, 207, 255, 21, 0, 255, 20, 35, 255, 20, 112, 255, 19, 188, 255, 19, 255, 255, 18, 255, 255, 0, 116, 255, 0, 255, 255, 0, 20, 255, 0, 255, 255, 0, 0, 255, 0, 76, 255, 0, 152]


@pytest.mark.parametrize("name", sorted(X_CASES))
def test_uint8_bit_exact(name):
    got = eval("V." + name)(X)
    assert got.dtype == np.uint8 and got.shape == X.shape
    np.testing.assert_array_equal(got.ravel(), X_CASES[name])


def test_float32_images():
    for name, expected in FLOAT_CASES.items():
        got = eval("V." + name)(XF)
        assert got.dtype == np.float32 and got.shape == XF.shape, name
        np.testing.assert_allclose(got.ravel()[::7], expected, rtol=1e-5, atol=1e-5, err_msg=name)


def test_tables_and_ties():
    np.testing.assert_array_equal(V.AdjustGamma(0.37, 0.8)(RAMP).ravel(), GAMMA_TABLE)
    np.testing.assert_array_equal(V.Equalize()(RAMP3[:5, :, 1]).ravel(), EQUALIZE_RAMP)
    np.testing.assert_array_equal(V.AdjustSaturation(1.7)(np.array(TIES, np.uint8)).ravel(), TIES_SATURATION)


def test_gray_and_one_channel_images():
    g = X[:, :, 0]
    # measured: the 1-channel ops keep <H, W> and <H, W, 1>
    for t in (V.AdjustBrightness(1.7), V.AdjustGamma(0.5), V.AdjustSharpness(1.7), V.Posterize(3), V.Solarize(100),
              V.AutoContrast(), V.Equalize(), V.GaussianBlur(3)):
        flat, kept = t(g), t(g[:, :, None])
        assert flat.shape == g.shape and kept.shape == g.shape + (1,)
        np.testing.assert_array_equal(flat, kept[:, :, 0])
    # each channel of a 3-channel image is treated alone by the per-channel ops
    for t in (V.AutoContrast(10.0), V.Equalize(), V.GaussianBlur(3), V.Posterize(3)):
        np.testing.assert_array_equal(t(g), t(X)[:, :, 0])


def test_hsv_round_trip_and_layouts():
    import colorsys
    hsv = V.RgbToHsv(is_hwc=True)(XF)
    assert hsv.dtype == np.float64 and hsv.shape == XF.shape
    expected = [colorsys.rgb_to_hsv(*p) for p in XF.reshape(-1, 3).astype(np.float64)]
    np.testing.assert_allclose(hsv.reshape(-1, 3), expected, atol=1e-6)
    np.testing.assert_allclose(V.HsvToRgb(is_hwc=True)(hsv), XF, atol=1e-6)
    chw = V.RgbToHsv()(XF.transpose(2, 0, 1))               # is_hwc=False: <C, H, W>, as 2.10's default
    np.testing.assert_allclose(chw.transpose(1, 2, 0), hsv)
    with pytest.raises(TypeError, match=r"img should be 3 channels RGB img. Got 4 channels."):
        V.RgbToHsv()(XF)


def test_hue_float_is_a_turn_of_the_hsv_hue():
    # 2.10 returns garbage for float images (measured values near 7e30); graphcell turns the colorsys hue
    import colorsys
    got = V.AdjustHue(0.25)(XF)
    h, s, v = colorsys.rgb_to_hsv(*XF[1, 2].astype(np.float64))
    np.testing.assert_allclose(got[1, 2], colorsys.hsv_to_rgb((h + 0.25) % 1.0, s, v), atol=1e-6)


def test_crop_erase_pad_resizedcrop():
    r = X
    np.testing.assert_array_equal(V.Crop((1, 2), (2, 3))(r), r[1:3, 2:5])
    erased = V.Erase(1, 2, 3, 2, (10, 20, 30))(r)
    expected = r.copy()
    expected[1:4, 2:4] = (10, 20, 30)
    np.testing.assert_array_equal(erased, expected)
    inplace = r.copy()
    V.Erase(3, 4, 3, 3, 7, inplace=True)(inplace)            # the box is clipped to the image (measured)
    assert inplace[3, 4].tolist() == [7, 7, 7] and (inplace[:3] == r[:3]).all()
    # measured on a 5 x 6 image: offset None centres it (rounding down), an int offset is (top, left) = (n, n)
    img = ((np.arange(90) * 37) % 256).astype(np.uint8).reshape(5, 6, 3)
    out = V.PadToSize((7, 9), None, (1, 2, 3))(img)
    assert out.shape == (7, 9, 3) and out[0, 0].tolist() == [1, 2, 3]
    np.testing.assert_array_equal(out[1:6, 1:7], img)
    np.testing.assert_array_equal(V.PadToSize((7, 9), 1, 5)(img)[1:6, 1:7], img)
    np.testing.assert_array_equal(V.PadToSize((7, 9), (1, 2), 5)(img)[1:6, 2:8], img)
    assert V.PadToSize((7, 9), (0, 1), 0, V.Border.REFLECT)(img)[:, :, 0][0].tolist() == \
        [111, 0, 111, 222, 77, 188, 43, 188, 77]
    # ResizedCrop(1, 2, 3, 3, (2, 2)) on that image, measured
    assert V.ResizedCrop(1, 2, 3, 3, (2, 2))(img)[..., 0].tolist() == [[122, 145], [113, 136]]


def test_small_helpers():
    assert V.get_image_num_channels(X) == 3 and V.get_image_num_channels(X[:, :, 0]) == 1
    assert V.get_image_size(X) == [4, 5]
    assert V.ToType(np.int8)(np.array([0, 37, 148], np.uint8)).tolist() == [0, 37, -108]
    assert type(V.ToNumpy()(X)) is np.ndarray
    m = np.diag(np.arange(60, dtype=np.float64))
    np.testing.assert_allclose(V.LinearTransformation(m, np.ones(60))(XF), ((XF.ravel() - 1) * np.arange(60)).reshape(XF.shape))
    out = V.NormalizePad((1, 2, 3), (2, 4, 8), "float16")(X)
    assert out.dtype == np.float16 and out.shape == (4, 5, 4) and not out[..., 3].any()
    np.testing.assert_allclose(out[..., :3], V.Normalize((1, 2, 3), (2, 4, 8))(X).astype(np.float16))


@pytest.mark.parametrize("make, img, error, message", [
    (lambda: V.AdjustBrightness(1.7), np.zeros((2, 2, 4), np.uint8), RuntimeError,
     "AdjustBrightness: the channel of image tensor does not match the requirement of operator. Expecting tensor in "
     "channel of (1, 3). But got channel 4."),
    (lambda: V.AdjustContrast(1.7), np.zeros((2, 2), np.uint8), RuntimeError,
     "AdjustContrast: the dimension of image tensor does not match the requirement of operator. Expecting tensor in "
     "dimension of (3), in shape of <H, W, C>. But got dimension 2."),
    (lambda: V.AdjustHue(0.1), np.zeros((2, 2, 1), np.uint8), RuntimeError,
     "AdjustHue: the channel of image tensor does not match the requirement of operator. Expecting tensor in "
     "channel of (3). But got channel 1."),
    (lambda: V.AdjustGamma(0.5), np.zeros((2, 2, 4), np.uint8), RuntimeError,
     "AdjustGamma: channel of input image should be 1 or 3, but got: 4"),
    (lambda: V.Invert(), np.zeros((2, 2), np.uint8), RuntimeError, "Invert: input tensor is not in shape of <H,W,C>, but got rank: 2"),
    (lambda: V.Invert(), np.zeros((2, 2, 1), np.uint8), RuntimeError,
     "Invert: the number of channels of input tensor is not 3, but got: 1"),
    (lambda: V.Posterize(3), np.zeros((2, 2, 3), np.float32), RuntimeError,
     "Posterize: data type of input image should be int8 or uint8, but got float32"),
    (lambda: V.AutoContrast(), np.zeros((2, 2, 4), np.uint8), RuntimeError,
     "AutoContrast: channel of input image should be 1 or 3, but got: 4"),
    (lambda: V.Equalize(), np.zeros((2, 2, 3), np.float32), RuntimeError, "Equalize: the image must be uint8"),
    (lambda: V.Crop((5, 6), 3), X, RuntimeError, "Crop: Crop height dimension: 8 exceeds image height: 4"),
    (lambda: V.Erase(1, 2, 3, 4), np.zeros((2, 2, 1), np.uint8), RuntimeError,
     "Erase: channel of input image should be 3, but got: 1"),
    (lambda: V.PadToSize(3), X, RuntimeError, "PadToSize: the target size to pad should be no less than the original "
     "image size, but got target size (3, 3) and original size (4, 5)."),
    (lambda: V.NormalizePad((1, 2, 3), (1, 1, 1)), np.zeros((2, 2, 4), np.uint8), RuntimeError,
     "NormalizePad: number of channels does not match the size of mean and std vectors, got channels: 4, size of mean: 3"),
])
def test_image_errors_as_mindspore(make, img, error, message):
    with pytest.raises(error) as info:
        make()(img)
    assert str(info.value).startswith(message)


@pytest.mark.parametrize("make, error, message", [
    (lambda: V.AdjustBrightness(-1), ValueError, "Input brightness_factor is not within the required interval of [0, 16777216]."),
    (lambda: V.AdjustBrightness("a"), TypeError, "Argument brightness_factor with value 'a' is not of type"),
    (lambda: V.AdjustHue(0.6), ValueError, "Input hue_factor is not within the required interval of [-0.5, 0.5]."),
    (lambda: V.AdjustSaturation(-1), ValueError, "Input is not within the required interval of [0, 16777216]."),
    (lambda: V.Posterize(9), ValueError, "Input bits is not within the required interval of [0, 8]."),
    (lambda: V.Posterize(1.5), TypeError, "Argument bits with value 1.5 is not of type [<class 'int'>]"),
    (lambda: V.Solarize(300), ValueError, "Input threshold[0] is not within the required interval of [0, 255]."),
    (lambda: V.Solarize((200, 100)), ValueError, "threshold must be in order of (min, max)."),
    (lambda: V.AutoContrast(50), ValueError, "Input cutoff is not within the required interval of [0, 50)."),
    (lambda: V.AutoContrast(1, 300), ValueError, "Input ignore is not within the required interval of [0, 255]."),
    (lambda: V.GaussianBlur(2), ValueError, "Input kernel_size is not an odd value."),
    (lambda: V.GaussianBlur(3, -1), ValueError, "Input sigma is not within the required interval of [0, 16777216]."),
    (lambda: V.RandomColorAdjust(-1), ValueError, "The input value of brightness cannot be negative."),
    (lambda: V.RandomColorAdjust(brightness=(2, 1)), ValueError, "brightness value should be in (min,max) format. Got (2, 1)."),
    (lambda: V.RandomSharpness((2, 1)), ValueError, "degrees should be in (min,max) format. Got (max,min)."),
    (lambda: V.RandomInvert(1.5), ValueError, "Input prob is not within the required interval of [0.0, 1.0]."),
    (lambda: V.Crop((-1, 2), 3), ValueError, "Input coordinates[0] is not within the required interval of [0, 2147483647]."),
    (lambda: V.Erase(1, 2, 0, 4), ValueError, "Input height is not within the required interval of [1, 2147483647]."),
    (lambda: V.Erase(1, 2, 3, 4, 300), ValueError, "Input value[0] is not within the required interval of [0, 255]."),
    (lambda: V.RandomRotation(-5), ValueError, "Input degrees is not within the required interval of [0, 16777216]."),
    (lambda: V.RandomRotation((10, 5)), ValueError, "degrees should be in (min,max) format. Got (max,min)."),
])
def test_argument_errors_as_mindspore(make, error, message):
    with pytest.raises(error) as info:
        make()
    assert str(info.value).startswith(message)


def test_random_forms_stay_in_range_and_repeat_with_the_seed():
    # a degenerate range is the deterministic transform (measured equal on 2.10)
    np.testing.assert_array_equal(V.RandomColor((0.5, 0.5))(X), V.AdjustSaturation(0.5)(X))
    np.testing.assert_array_equal(V.RandomSharpness((0.5, 0.5))(X), V.AdjustSharpness(0.5)(X))
    adjusted = V.RandomColorAdjust((0.5, 0.5), (1.5, 1.5), (0.7, 0.7), (0.1, 0.1))(X)
    np.testing.assert_array_equal(adjusted, V.AdjustHue(0.1)(V.AdjustSaturation(0.7)(V.AdjustContrast(1.5)(V.AdjustBrightness(0.5)(X)))))
    np.testing.assert_array_equal(V.RandomRotation((30, 30))(X), V.Rotate(30)(X))
    np.testing.assert_array_equal(V.RandomInvert(1.0)(X), V.Invert()(X))
    assert V.RandomEqualize(0.0)(X) is not None and np.array_equal(V.RandomEqualize(0.0)(X), X)
    config.set_seed(7)
    first = [V.RandomSharpness()(X), V.RandomSolarize((10, 200))(X), V.RandomPosterize((1, 8))(X),
             V.RandomResize((3, 4))(X), V.CutOut(2, 3)(X)]
    config.set_seed(7)
    second = [V.RandomSharpness()(X), V.RandomSolarize((10, 200))(X), V.RandomPosterize((1, 8))(X),
              V.RandomResize((3, 4))(X), V.CutOut(2, 3)(X)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a, b)
    # factors come from the range: each RandomSharpness output is AdjustSharpness at some factor in (0.1, 1.9)
    brightness = V.RandomColorAdjust(brightness=0.5)
    for _ in range(20):
        ratio = brightness(np.full((2, 2, 3), 100, np.uint8))[0, 0, 0] / 100
        assert 0.5 <= ratio <= 1.5


def test_cutout_and_random_erasing():
    config.set_seed(3)
    img = np.full((8, 10, 3), 200, np.uint8)
    sizes, cutout = set(), V.CutOut(3)
    for _ in range(60):
        out = cutout(img)
        zeros = (out == 0).all(-1)
        assert ((out == 0).any(-1) == zeros).all()           # whole pixels
        sizes.add(int(zeros.sum()))
    assert max(sizes) == 9 and min(sizes) < 9                  # boxes reach past the border (as 2.10's)
    chw = V.CutOut(3, 1, is_hwc=False)(np.full((3, 8, 10), 200, np.uint8))
    assert ((chw == 0).any(0) == (chw == 0).all(0)).all()
    areas, erasing = [], V.RandomErasing(prob=1.0)
    for _ in range(60):
        out = erasing(np.ones((3, 8, 10), np.float32))
        areas.append(int((out[0] == 0).sum()))
        assert (out == 0).sum() == 3 * areas[-1]
    assert 1 <= min(areas) and max(areas) <= 0.33 * 80 + 8


def test_mixup_and_cutmix_batches():
    config.set_seed(5)
    images = np.stack([np.full((4, 5, 3), i * 50, np.uint8) for i in range(4)])
    labels = np.eye(4, dtype=np.float32)
    mixed, mixed_labels = V.MixUpBatch(1.0)(images, labels)
    assert mixed.dtype == np.uint8 and mixed.shape == images.shape and mixed_labels.dtype == np.float32
    np.testing.assert_allclose(mixed_labels.sum(1), 1, rtol=1e-6)
    lam = mixed_labels.max(1)
    np.testing.assert_allclose(mixed[:, 0, 0, 0], np.rint((mixed_labels * np.arange(4) * 50).sum(1)), atol=1)
    cut, cut_labels = V.CutMixBatch(V.ImageBatchFormat.NHWC)(images, labels)
    area = np.array([(c[..., 0] != i * 50).mean() for i, c in enumerate(cut)])
    np.testing.assert_allclose(1 - np.diag(cut_labels), area, atol=1e-6)
    assert lam.min() >= 0.5
    with pytest.raises(RuntimeError, match="MixUpBatch: wrong labels shape"):
        V.MixUpBatch()(images, np.arange(4))
    with pytest.raises(RuntimeError, match="CutMixBatch: input label is not in shape of <Batch,Class>"):
        V.CutMixBatch(V.ImageBatchFormat.NHWC)(images, np.arange(4))


def test_read_and_write_file(tmp_path):
    path = tmp_path / "f.bin"
    V.write_file(str(path), np.array([97, 98, 99], np.uint8))
    got = V.read_file(str(path))
    assert got.dtype == np.uint8 and got.tolist() == [97, 98, 99] and path.read_bytes() == b"abc"
    with pytest.raises(RuntimeError, match="WriteFile: The data has invalid dimensions. It should have only one "
                                           "dimension, but got 2 dimensions."):
        V.write_file(str(path), np.array([[1, 2]], np.uint8))
    with pytest.raises(RuntimeError, match="ReadFile: Invalid file path, .*nope does not exist."):
        V.read_file(str(tmp_path / "nope"))
    with pytest.raises(RuntimeError, match="EncodePng: The type of the image data should be UINT8, but got float32."):
        V.encode_png(XF)
    with pytest.raises(RuntimeError, match=r"EncodePng: Invalid compression_level 10, should be in range of \[0, 9\]."):
        V.encode_png(X, 10)


def test_png_and_pil_only_transforms():
    image = pytest.importorskip("PIL.Image")
    import io
    png = V.encode_png(X)
    assert png.dtype == np.uint8 and png.ndim == 1 and png[:8].tobytes() == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(np.asarray(image.open(io.BytesIO(png.tobytes()))), X)
    pil = image.fromarray(X)
    # measured on 2.10 (channel 0 of each crop): top-left, top-right, bottom-left, bottom-right, centre
    five = V.FiveCrop(2)(pil)
    assert [np.asarray(c)[..., 0].tolist() for c in five] == [
        [[13, 48], [188, 223]], [[118, 153], [37, 72]], [[107, 142], [26, 61]], [[212, 247], [131, 166]],
        [[2, 37], [177, 212]]]
    ten = V.TenCrop(2, True)(pil)
    assert len(ten) == 10 and [np.asarray(c)[..., 0].tolist() for c in ten[5:]] == [
        [[26, 61], [107, 142]], [[131, 166], [212, 247]], [[188, 223], [13, 48]], [[37, 72], [118, 153]],
        [[177, 212], [2, 37]]]
    gray = V.Grayscale()(pil)
    assert gray.mode == "L" and np.asarray(gray).tolist()[0] == [92, 127, 133, 168, 203]
    assert V.Grayscale(3)(pil).mode == "RGB" and V.RandomGrayscale(1.0)(pil).mode == "RGB"
    with pytest.raises(TypeError, match="img should be PIL image. Got <class 'numpy.ndarray'>."):
        V.FiveCrop(2)(X)


# Affine on RG (7 x 9 x 3) and its channel 0 (GG), measured on 2.10, flattened
RG = ((np.arange(7 * 9 * 3) * 37) % 256).astype(np.uint8).reshape(7, 9, 3)
GG = ((np.arange(7 * 9) * 37) % 256).astype(np.uint8).reshape(7, 9)
AFFINE_CASES = [
    ((30.0, [0, 0], 1.0, [0.0, 0.0]), "GG", [0, 154, 114, 151, 111, 111, 0, 0, 0, 231, 231, 191, 228, 188, 225, 185, 222, 0, 52, 89, 49, 86, 46, 46, 6, 43, 3, 166, 166, 126, 163, 123, 160, 120, 157, 80, 243, 203, 240, 200, 237, 160, 197, 157, 194, 0, 24, 61, 21, 58, 18, 55, 15, 15, 0, 0, 0, 135, 172, 95, 132, 92, 0]),
    ((0.0, [0, 0], 1.3, [0.0, 0.0]), "GG", [114, 151, 151, 188, 225, 6, 43, 43, 80, 114, 151, 151, 188, 225, 6, 43, 43, 80, 191, 228, 228, 9, 46, 83, 120, 120, 157, 12, 49, 49, 86, 123, 160, 197, 197, 234, 89, 126, 126, 163, 200, 237, 18, 18, 55, 166, 203, 203, 240, 21, 58, 95, 95, 132, 166, 203, 203, 240, 21, 58, 95, 95, 132]),
    ((0.0, [0, 0], 1.0, [0.0, 10.0]), "GG", [0, 0, 74, 111, 148, 185, 222, 80, 117, 0, 37, 151, 188, 225, 6, 43, 157, 194, 77, 114, 228, 9, 46, 83, 120, 234, 15, 154, 191, 49, 86, 123, 160, 197, 55, 92, 231, 12, 126, 163, 200, 237, 18, 132, 169, 52, 89, 203, 240, 21, 58, 95, 209, 246, 129, 166, 24, 61, 98, 135, 172, 0, 0]),
    ((0.0, [0.5, 0], 1.0, 0.0), "GG", [0, 0, 0, 0, 0, 37, 74, 111, 148, 0, 0, 0, 0, 77, 114, 151, 188, 225, 0, 0, 0, 0, 154, 191, 228, 9, 46, 0, 0, 0, 0, 231, 12, 49, 86, 123, 0, 0, 0, 0, 52, 89, 126, 163, 200, 0, 0, 0, 0, 129, 166, 203, 240, 21, 0, 0, 0, 0, 206, 243, 24, 61, 98]),
    ((-20.0, [0.1, -0.15], 0.8, [5.0, -3.0], V.Inter.BILINEAR, (10, 20, 30)), "RG", [10, 20, 30, 8, 24, 40, 78, 85, 111, 167, 40, 77, 127, 164, 112, 61, 98, 117, 124, 161, 198, 206, 122, 64, 50, 77, 104, 10, 20, 30, 64, 24, 50, 109, 107, 144, 193, 230, 51, 63, 100, 137, 178, 114, 151, 152, 93, 130, 182, 219, 40, 43, 78, 113, 10, 20, 30, 68, 58, 31, 134, 171, 80, 128, 165, 202, 23, 60, 97, 121, 136, 171, 167, 110, 65, 117, 154, 170, 91, 93, 130, 10, 20, 30, 10, 20, 30, 154, 191, 228, 64, 101, 138, 177, 79, 116, 113, 109, 131, 183, 220, 169, 49, 86, 123, 175, 108, 145, 10, 20, 30, 10, 20, 30, 125, 157, 190, 182, 33, 70, 122, 159, 132, 128, 165, 66, 115, 152, 189, 19, 51, 82, 57, 68, 89, 10, 20, 30, 10, 20, 30, 66, 91, 115, 187, 218, 77, 59, 87, 105, 58, 77, 25, 10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30, 14, 25, 36, 10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30, 10, 20, 30]),
    ((170.0, [0.05, 0.0], 1.1, [0.0, 0.0], V.Inter.NEAREST, (1, 2, 3)), "RG", [226, 7, 44, 115, 152, 189, 4, 41, 78, 149, 186, 223, 38, 75, 112, 183, 220, 1, 97, 134, 171, 242, 23, 60, 131, 168, 205, 251, 32, 69, 140, 177, 214, 29, 66, 103, 174, 211, 248, 63, 100, 137, 208, 245, 26, 97, 134, 171, 11, 48, 85, 11, 48, 85, 251, 32, 69, 165, 202, 239, 54, 91, 128, 199, 236, 17, 88, 125, 162, 233, 14, 51, 122, 159, 196, 147, 184, 221, 36, 73, 110, 20, 57, 94, 165, 202, 239, 79, 116, 153, 224, 5, 42, 113, 150, 187, 113, 150, 187, 2, 39, 76, 147, 184, 221, 61, 98, 135, 45, 82, 119, 190, 227, 8, 104, 141, 178, 249, 30, 67, 249, 30, 67, 138, 175, 212, 27, 64, 101, 172, 209, 246, 61, 98, 135, 70, 107, 144, 215, 252, 33, 215, 252, 33, 129, 166, 203, 18, 55, 92, 163, 200, 237, 52, 89, 126, 197, 234, 15, 86, 123, 160, 95, 132, 169, 95, 132, 169, 240, 21, 58, 129, 166, 203, 43, 80, 117, 188, 225, 6, 77, 114, 151, 222, 3, 40, 111, 148, 185]),
]
AFFINE_FLOAT = [0.0, 2.4776785373687744, 5.695731163024902, 8.754465103149414, 28.28125, 9.972098350524902, 8.572265625, 20.553571701049805, 14.285715103149414, 21.73214340209961, 5.718750476837158, 0.0, 19.071428298950195, 28.848215103149414, 19.473215103149414, 16.696428298950195, 18.584819793701172, 0.0, 9.080357551574707, 16.571428298950195, 31.37053680419922, 24.991071701049805, 0.0, 22.039201736450195, 17.375, 9.36160659790039, 6.598772048950195, 0.0, 0.0, 31.116069793701172, 7.3604912757873535, 0.0, 0.0, 0.0, 1.0546875, 0.0, 0.0, 0.0]     # every 5th value, case 5 on RG / 7 in float32 with fill 0


def test_affine_bit_exact():
    for args, name, expected in AFFINE_CASES:
        img = RG if name == "RG" else GG
        got = V.Affine(*args)(img)
        assert got.dtype == np.uint8 and got.shape == img.shape
        np.testing.assert_array_equal(got.ravel(), np.ravel(expected), err_msg=str(args))
    got = V.Affine(-20.0, [0.1, -0.15], 0.8, [5.0, -3.0], V.Inter.BILINEAR, 0)((RG / 7).astype(np.float32))
    np.testing.assert_allclose(got.ravel()[::5], AFFINE_FLOAT, rtol=1e-5, atol=1e-5)
    # Affine(d) is Rotate(-d) (measured)
    np.testing.assert_array_equal(V.Affine(30.0, [0, 0], 1.0, [0.0, 0.0])(GG), V.Rotate(-30)(GG))
    config.set_seed(2)
    random = V.RandomAffine((30, 30), (0.0, 0.0), (1.3, 1.3))
    np.testing.assert_array_equal(random(GG), V.Affine(30.0, [0, 0], 1.3, [0.0, 0.0])(GG))
    for make, error, message in [
            (lambda: V.Affine(0.0, [0, 0], 0.0, [0.0, 0.0]), ValueError, "Input scale must be greater than 0."),
            (lambda: V.Affine(0.0, [0, 0, 0], 1.0, 0.0), TypeError, "The length of translate should be 2."),
            (lambda: V.Affine(0.0, [2, 0], 1.0, 0.0), ValueError,
             "Input translate[0] is not within the required interval of [-1.0, 1.0]."),
            (lambda: V.Affine(200.0, [0, 0], 1.0, 0.0), ValueError,
             "Input degrees is not within the required interval of [-180, 180]."),
            (lambda: V.RandomAffine(-1), ValueError, "Input degrees is not within the required interval of [0, 16777216]."),
            (lambda: V.RandomAffine(10, (0.1, 0.2, 0.3)), TypeError, "translate should be a list or tuple of length 2 or 4."),
            (lambda: V.RandomAffine(10, scale=(2, 1)), ValueError, "Input scale[1] must be equal to or greater than scale[0]."),
            (lambda: V.RandomAffine(10, shear=(1, 2, 3)), TypeError, "shear must be of length 2 or 4.")]:
        with pytest.raises(error) as info:
            make()
        assert str(info.value) == message
