"""VOC, COCO, CelebA and Manifest readers on tiny files written in the real formats (PNG bytes
stand in for the JPEGs: undecoded rows are the file's bytes). The expected rows (order with
shuffle=False, values, dtypes, shapes, shards, messages) were measured on MindSpore 2.10 with the
same files."""
import json

import numpy as np
import pytest

import graphcell.dataset as ds
from tests.test_dataset_sources import _png


def _img(k):
    return (np.arange(18).reshape(2, 3, 3) * 10 + k * 7) % 256


def _rows(d):
    return [list(r) for r in d.create_tuple_iterator(output_numpy=True, num_epochs=1)]


def _bytes(path):
    return np.frombuffer(path.read_bytes(), np.uint8)


def _obj(name, box, difficult=None, truncated=None):
    s = f"<object><name>{name}</name>"
    s += "" if difficult is None else f"<difficult>{difficult}</difficult>"
    s += "" if truncated is None else f"<truncated>{truncated}</truncated>"
    return s + "<bndbox><xmin>%s</xmin><ymin>%s</ymin><xmax>%s</xmax><ymax>%s</ymax></bndbox></object>" % box


@pytest.fixture
def voc(tmp_path):
    for d in ["JPEGImages", "Annotations", "SegmentationClass", "ImageSets/Main", "ImageSets/Segmentation"]:
        (tmp_path / d).mkdir(parents=True)
    for k, i in enumerate(["b2", "a1", "c3"]):
        (tmp_path / "JPEGImages" / f"{i}.jpg").write_bytes(_png(_img(k)))
        (tmp_path / "SegmentationClass" / f"{i}.png").write_bytes(_png(np.full((2, 3), k + 1)))
    xml = {"b2": _obj("dog", (1, 2, 3, 4), 0, 1) + _obj("cat", (5.5, 6, 7, 8), 1, 0),
           "a1": _obj("person", (1, 1, 3, 2)), "c3": _obj("cat", (2, 1, 3, 2), 1, 1)}
    for i, body in xml.items():
        (tmp_path / "Annotations" / f"{i}.xml").write_text(f"<annotation><filename>{i}.jpg</filename>{body}</annotation>")
    for sub in ["Main", "Segmentation"]:
        (tmp_path / "ImageSets" / sub / "train.txt").write_text("b2\na1\nc3\n")
        (tmp_path / "ImageSets" / sub / "val.txt").write_text("a1\n")
    return tmp_path


def test_voc_detection(voc):
    d = ds.VOCDataset(str(voc), task="Detection", shuffle=False)
    assert d.get_col_names() == ["image", "bbox", "label", "difficult", "truncate"]
    rows = _rows(d)
    for row, i in zip(rows, ["b2", "a1", "c3"]):     # the list's order
        np.testing.assert_array_equal(row[0], _bytes(voc / "JPEGImages" / f"{i}.jpg"))
    assert [str(a.dtype) for a in rows[0]] == ["uint8", "float32", "uint32", "uint32", "uint32"]
    # measured: bbox [xmin, ymin, w, h], columns [k, 1]; labels by sorted names; difficult/truncated default 0
    assert [[a.tolist() for a in r[1:]] for r in rows] == [
        [[[1, 2, 2, 2], [5.5, 6, 1.5, 2]], [[1], [0]], [[0], [1]], [[1], [0]]],
        [[[1, 1, 2, 1]], [[2]], [[0]], [[0]]],
        [[[2, 1, 1, 1]], [[0]], [[1]], [[1]]]]
    assert d.get_class_indexing() == {"cat": 0, "dog": 1, "person": 2}
    given = ds.VOCDataset(str(voc), task="Detection", shuffle=False, class_indexing={"cat": 5, "dog": 1})
    # objects outside class_indexing are dropped, and an image left without objects (a1)
    assert [r[2].tolist() for r in _rows(given)] == [[[1], [5]], [[5]]]
    assert [r[2].tolist() for r in _rows(ds.VOCDataset(str(voc), task="Detection", usage="val"))] == [[[0]]]
    shard = ds.VOCDataset(str(voc), task="Detection", shuffle=False, num_shards=2, shard_id=1)
    assert [r[1].shape[0] for r in _rows(shard)] == [1, 2]      # a1, b2
    assert len(_rows(ds.VOCDataset(str(voc), task="Detection", shuffle=False, num_samples=2))) == 2
    meta = ds.VOCDataset(str(voc), task="Detection", shuffle=False, extra_metadata=True)
    assert meta.get_col_names()[-1] == "_meta-filename" and len(_rows(meta)[0]) == 5    # left out of rows
    names = [r[-1] for r in _rows(meta.rename("_meta-filename", "filename"))]
    assert [str(n) for n in names] == ["b2", "a1", "c3"] and names[0].shape == () and names[0].dtype.kind == "U"


def test_voc_segmentation_and_errors(voc):
    rows = _rows(ds.VOCDataset(str(voc), shuffle=False))    # task "Segmentation", usage "train"
    for row, i in zip(rows, ["b2", "a1", "c3"]):
        np.testing.assert_array_equal(row[0], _bytes(voc / "JPEGImages" / f"{i}.jpg"))
        np.testing.assert_array_equal(row[1], _bytes(voc / "SegmentationClass" / f"{i}.png"))
    with pytest.raises(NotImplementedError, match="Only 'Detection' support get_class_indexing."):
        ds.VOCDataset(str(voc)).get_class_indexing()
    with pytest.raises(ValueError, match="class_indexing is not supported in Segmentation task."):
        ds.VOCDataset(str(voc), class_indexing={"a": 1})
    with pytest.raises(ValueError, match="Invalid task : detection."):
        ds.VOCDataset(str(voc), task="detection")
    with pytest.raises(ValueError, match="The file .*Main/test.txt does not exist or permission denied!"):
        ds.VOCDataset(str(voc), task="Detection", usage="test")
    with pytest.raises(TypeError, match=r"Argument usage with value 1 is not of type \[<class 'str'>\]"):
        ds.VOCDataset(str(voc), usage=1)
    with pytest.raises(ValueError, match="num_parallel_workers exceeds the boundary between 1 and"):
        ds.VOCDataset(str(voc), num_parallel_workers=0)
    xml = voc / "Annotations" / "a1.xml"
    for body, message in [(_obj("cat", (0, 1, 2, 2)), "should be greater than 0, but got {0, 1, 2, 2}"),
                          (_obj("cat", (1, 2, 3, 2)), "should be greater than 0, but got {1, 2, 3, 2}"),
                          ("", "Invalid xml, the node of object is missing in .*a1.xml."),
                          ("<object><name>cat</name></object>", "Invalid xml, the node of bndbox is missing")]:
        xml.write_text(f"<annotation>{body}</annotation>")
        with pytest.raises(RuntimeError, match=message):
            _rows(ds.VOCDataset(str(voc), task="Detection"))
    xml.write_text("<annotation><object>")
    with pytest.raises(RuntimeError, match="Invalid xml, failed to load .*a1.xml: the xml file is damaged"):
        _rows(ds.VOCDataset(str(voc), task="Detection"))
    xml.unlink()
    with pytest.raises(RuntimeError, match="Invalid file path, .*a1.xml does not exist."):
        _rows(ds.VOCDataset(str(voc), task="Detection"))
    (voc / "JPEGImages" / "a1.jpg").unlink()
    with pytest.raises(RuntimeError, match="Failed to open file: .*a1.jpg"):
        _rows(ds.VOCDataset(str(voc), shuffle=False))


@pytest.fixture
def coco(tmp_path):
    names = {3: "c.jpg", 1: "a.jpg", 2: "b.jpg", 4: "d.jpg"}       # d has no annotations
    for k, name in enumerate(names.values()):
        (tmp_path / name).write_bytes(_png(_img(k)))
    images = [{"id": i, "file_name": n} for i, n in names.items()]
    cats = [{"id": 7, "name": "dog", "isthing": 1}, {"id": 2, "name": "cat", "isthing": 1},
            {"id": 9, "name": "sky", "isthing": 0}]

    def ann(i, image, cat, bbox, iscrowd, seg, kps, n):
        return {"id": i, "image_id": image, "category_id": cat, "bbox": bbox, "iscrowd": iscrowd, "area": 1,
                "segmentation": seg, "keypoints": kps, "num_keypoints": n}
    files = {
        "det": {"images": images, "categories": cats, "annotations": [
            ann(10, 1, 7, [1, 2, 3, 4], 0, [[1, 2, 3, 4, 5, 6]], [1, 2, 2, 3, 4, 1], 2),
            ann(11, 3, 2, [0.5, 1.5, 2, 1], 1, {"counts": [1, 2, 3], "size": [2, 3]}, [0, 0, 0, 7, 8, 2], 1),
            ann(12, 1, 2, [5, 6, 7, 8], 0, [[9, 8, 7, 6]], [3, 3, 1], 2),
            ann(13, 2, 9, [1, 1, 1, 1], 0, [[2, 2, 3, 3], [4, 4]], [5, 5, 2, 6, 6, 2], 2)]},
        "pan": {"images": images, "categories": cats, "annotations": [
            {"image_id": 1, "file_name": "a.png", "segments_info": [
                {"id": 5, "category_id": 7, "iscrowd": 0, "bbox": [1, 2, 3, 4], "area": 12.7},
                {"id": 6, "category_id": 9, "iscrowd": 1, "bbox": [0, 0, 3, 2], "area": 6}]},
            {"image_id": 3, "file_name": "c.png", "segments_info": [
                {"id": 8, "category_id": 2, "iscrowd": 0, "bbox": [1.5, 1, 1, 1], "area": 1}]}]},
        "cap": {"images": images, "annotations": [{"id": 1, "image_id": 1, "caption": "a dog"},
                                                  {"id": 2, "image_id": 3, "caption": "one cat"},
                                                  {"id": 3, "image_id": 1, "caption": "two animals"}]}}
    for name, content in files.items():
        (tmp_path / f"{name}.json").write_text(json.dumps(content))
    return tmp_path


def test_coco_tasks(coco):
    def read(f, task, **kw):
        d = ds.CocoDataset(str(coco), str(coco / f"{f}.json"), task=task, shuffle=False, **kw)
        rows = _rows(d)
        return d, [[a.tolist() for a in r[1:]] for r in rows], rows
    # measured: rows follow "images" (c, a, b), skipping images without annotations; -1 pads short rows
    d, values, rows = read("det", "Detection")
    assert d.get_col_names() == ["image", "bbox", "category_id", "iscrowd"]
    for row, f in zip(rows, ["c.jpg", "a.jpg", "b.jpg"]):
        np.testing.assert_array_equal(row[0], _bytes(coco / f))
    assert [str(a.dtype) for a in rows[0]] == ["uint8", "float32", "uint32", "uint32"]
    assert values == [[[[0.5, 1.5, 2, 1]], [[2]], [[1]]], [[[1, 2, 3, 4], [5, 6, 7, 8]], [[7], [2]], [[0], [0]]],
                      [[[1, 1, 1, 1]], [[9]], [[0]]]]
    assert d.get_class_indexing() == {"dog": [7], "cat": [2], "sky": [9]}
    # Stuff: one row per polygon (or the RLE counts of an iscrowd annotation)
    assert read("det", "Stuff")[1] == [[[[1, 2, 3]], [[1]]], [[[1, 2, 3, 4, 5, 6], [9, 8, 7, 6, -1, -1]], [[0], [0]]],
                                       [[[2, 2, 3, 3], [4, 4, -1, -1]], [[0]]]]
    d, values, rows = read("det", "Keypoint")
    assert values == [[[[0, 0, 0, 7, 8, 2]], [[1]]], [[[1, 2, 2, 3, 4, 1], [3, 3, 1, -1, -1, -1]], [[2], [2]]],
                      [[[5, 5, 2, 6, 6, 2]], [[2]]]]
    assert [str(a.dtype) for a in rows[0][1:]] == ["float32", "uint32"]
    d, values, rows = read("pan", "Panoptic")
    assert values == [[[[1.5, 1, 1, 1]], [[2]], [[0]], [[1]]],
                      [[[1, 2, 3, 4], [0, 0, 3, 2]], [[7], [9]], [[0], [1]], [[12], [6]]]]   # area truncated
    assert str(rows[0][4].dtype) == "uint32" and d.get_class_indexing() == {"dog": [7, 1], "cat": [2, 1],
                                                                            "sky": [9, 0]}
    d, values, rows = read("cap", "Captioning")
    assert values == [[[["one cat"]]], [[["a dog"], ["two animals"]]]] and rows[1][1].shape == (2, 1)
    with pytest.raises(NotImplementedError, match="Only 'Detection' and 'Panoptic' support get_class_indexing."):
        d.get_class_indexing()
    meta = read("det", "Detection", extra_metadata=True)[0].rename("_meta-filename", "name")
    assert [str(r[-1]) for r in _rows(meta)] == ["c", "a", "b"]
    shard = ds.CocoDataset(str(coco), str(coco / "det.json"), shuffle=False, num_shards=2, shard_id=1)
    assert [r[1].shape[0] for r in _rows(shard)] == [2, 1]     # a, c


def test_coco_errors(coco):
    det = json.loads((coco / "det.json").read_text())
    bad = coco / "bad.json"

    def fails(content, message, task="Detection", error=RuntimeError):
        bad.write_text(content if isinstance(content, str) else json.dumps(content))
        with pytest.raises(error, match=message):
            _rows(ds.CocoDataset(str(coco), str(bad), task=task))
    fails("{not json", "Invalid annotation file, Coco Dataset annotation file:.*bad.json load failed")
    fails(dict(det, images=[]), "Invalid annotation, the 'image' node is missing in annotation file")
    fails(dict(det, categories=[]), "Invalid annotation, the 'categories' node is missing in annotation file")
    fails({"images": det["images"], "categories": det["categories"]}, "the attribute of 'annotations' is missing in annotation file")
    fails({k: v for k, v in det.items() if k != "categories"}, "the attribute of 'categories' is missing")
    wrong = json.loads(json.dumps(det))
    wrong["annotations"][0]["category_id"] = 99
    fails(wrong, "the attribute of 'category_id': 99 is missing in the node of 'categories' from annotation file")
    wrong["annotations"][0]["image_id"] = 99
    fails(wrong, "the attribute of 'image_id': 99 is missing in the node of 'image' from annotation file")
    del det["annotations"][1]["segmentation"]["counts"]
    fails(det, "the attribute of 'counts' is missing", task="Stuff")
    del det["annotations"][0]["num_keypoints"]
    fails(det, "the 'num_keypoint' node is missing in annotation file: .* where 'image_id': 10.", task="Keypoint")
    det["images"][0]["file_name"] = "zz.jpg"
    fails(det, "Failed to open file: .*zz.jpg")
    fails(det, "Invalid task type: det.", task="det", error=ValueError)
    with pytest.raises(ValueError, match="The file .*none.json does not exist or permission denied!"):
        ds.CocoDataset(str(coco), str(coco / "none.json"))
    with pytest.raises(TypeError, match="path: 5 is not string"):
        ds.CocoDataset(str(coco), 5)


@pytest.fixture
def celeba(tmp_path):
    files = ["000002.jpg", "000001.jpg", "000003.jpg", "000004.jpg"]
    for k, f in enumerate(files):
        (tmp_path / f).write_bytes(_png(_img(k)))
    attrs = ["1 -1  1", "-1 -1  1", " 1  1 -1", "-1  1  1"]
    (tmp_path / "list_attr_celeba.txt").write_text(
        "4\nSmiling Male Young\n" + "".join(f"{f}  {a}\n" for f, a in zip(files, attrs)))
    (tmp_path / "list_eval_partition.txt").write_text("".join(f"{f} {p}\n" for f, p in zip(files, [0, 1, 2, 0])))
    return tmp_path, files


def test_celeba(celeba):
    root, files = celeba

    def read(**kw):
        return _rows(ds.CelebADataset(str(root), shuffle=False, **kw))
    rows = read()
    for row, f in zip(rows, files):                  # list_attr_celeba.txt's order
        np.testing.assert_array_equal(row[0], _bytes(root / f))
    assert [r[1].tolist() for r in rows] == [[1, 0, 1], [0, 0, 1], [1, 1, 0], [0, 1, 1]]
    assert rows[0][1].dtype == np.uint32
    assert [r[1].tolist() for r in read(usage="train")] == [[1, 0, 1], [0, 1, 1]]
    assert [r[1].tolist() for r in read(usage="valid")] == [[0, 0, 1]]
    assert [r[1].tolist() for r in read(usage="test")] == [[1, 1, 0]]
    assert [r[1].tolist() for r in read(num_shards=3, shard_id=2)] == [[1, 1, 0], [0, 0, 1]]
    assert len(read(num_samples=2)) == 2 and len(read(extensions=[".jpg"])) == 4
    with pytest.raises(RuntimeError, match="CelebADataset API can't read the data file"):
        read(extensions=[".png"])
    with pytest.raises(ValueError, match="usage should be 'all', 'train', 'valid' or 'test'."):
        read(usage="val")
    (root / "list_attr_celeba.txt").rename(root / "attr.txt")
    with pytest.raises(RuntimeError, match="Invalid file path, .*list_attr_celeba.txt does not exist."):
        read()
    (root / "attr.txt").rename(root / "list_attr_celeba.txt")
    (root / "list_eval_partition.txt").unlink()
    assert len(read()) == 4
    with pytest.raises(RuntimeError, match="Partition file can not be found when usage is not 'all'."):
        read(usage="train")
    (root / "000003.jpg").unlink()
    with pytest.raises(RuntimeError, match="Failed to open file: .*000003.jpg"):
        read()


def test_manifest(tmp_path):
    entries = [("b.jpg", "train", ["dog"]), ("a.jpg", "train", ["cat"]), ("c.jpg", "eval", ["dog"]),
               ("d.jpg", "train", ["bird", "cat"]), ("e.jpg", "train", [])]
    lines = []
    for k, (f, usage, labels) in enumerate(entries):
        (tmp_path / f).write_bytes(_png(_img(k)))
        lines.append(json.dumps({"source": str(tmp_path / f), "usage": usage,
                                 "annotation": [{"type": "label", "name": n} for n in labels]}))
    manifest = tmp_path / "m.manifest"
    manifest.write_text("\n".join(lines) + "\n")
    d = ds.ManifestDataset(str(manifest), shuffle=False)
    rows = _rows(d)
    for row, f in zip(rows, ["b.jpg", "a.jpg", "d.jpg"]):    # lines without labels are skipped
        np.testing.assert_array_equal(row[0], _bytes(tmp_path / f))
    # measured: int32, a scalar for one label, [k] for several
    assert [(r[1].tolist(), r[1].shape, str(r[1].dtype)) for r in rows] == [
        (2, (), "int32"), (1, (), "int32"), ([0, 1], (2,), "int32")]
    assert d.get_class_indexing() == {"bird": 0, "cat": 1, "dog": 2}
    evaluation = ds.ManifestDataset(str(manifest), usage="eval", shuffle=False)
    assert [r[1].tolist() for r in _rows(evaluation)] == [0] and evaluation.get_class_indexing() == {"dog": 0}
    given = ds.ManifestDataset(str(manifest), shuffle=False, class_indexing={"dog": 4, "cat": 1})
    assert [r[1].tolist() for r in _rows(given)] == [4, 1, 1]
    shard = ds.ManifestDataset(str(manifest), shuffle=False, num_shards=2, shard_id=1)
    assert [r[1].tolist() for r in _rows(shard)] == [1, 2]
    with pytest.raises(RuntimeError, match="ManifestDataset API can't read the data file"):
        _rows(ds.ManifestDataset(str(manifest), usage="inference"))
    with pytest.raises(RuntimeError, match=r"test does not match any mode in \[ inference eval train \]"):
        _rows(ds.ManifestDataset(str(manifest), usage="test"))
    with pytest.raises(ValueError, match="The file .*none does not exist or permission denied!"):
        ds.ManifestDataset(str(tmp_path / "none"))


def test_readers_decode(voc, tmp_path):
    pytest.importorskip("PIL")
    rows = _rows(ds.VOCDataset(str(voc), shuffle=False, decode=True))
    # measured: image and target decoded to RGB HWC uint8 (the grey target repeated on 3 channels)
    np.testing.assert_array_equal(rows[1][0], _img(1))
    np.testing.assert_array_equal(rows[1][1], np.full((2, 3, 3), 2))
    det = _rows(ds.VOCDataset(str(voc), task="Detection", shuffle=False, decode=True))
    assert det[2][0].shape == (2, 3, 3) and det[2][0].dtype == np.uint8
