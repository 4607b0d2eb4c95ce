"""VOCDataset: PASCAL VOC's folders (JPEGImages/<id>.jpg, Annotations/<id>.xml,
SegmentationClass/<id>.png, ImageSets/{Main,Segmentation}/<usage>.txt).

As measured on MindSpore 2.10: rows are the ids of the usage list in its order.
task "Segmentation": "image" and "target" (the PNG), both raw bytes uint8 [n], or decoded RGB
[H, W, 3] with decode=True. task "Detection": "image", "bbox" float32 [k, 4] =
[xmin, ymin, xmax - xmin, ymax - ymin], "label", "difficult", "truncate" uint32 [k, 1].
Labels come from class_indexing, by default the object names of the listed images in name
order; objects without a name or outside class_indexing are dropped, and so is an image left
with none. A box needs xmin, ymin > 0 and xmax > xmin, ymax > ymin. extra_metadata=True adds
"_meta-filename" (the id), which iterators leave out until it is renamed.
"""
from __future__ import annotations

import os
import xml.etree.ElementTree as ET

import numpy as np

from ._checks import check_bool, check_class_indexing, check_file, check_folder, check_type, check_workers
from ._image_rows import ImageRows, image_decoder
from .sources import GeneratorDataset

_NAME = "VOCDataset"
_COORDS = ("xmin", "ymin", "xmax", "ymax")


def _number(node, tag: str) -> float:
    """A child's text as a number; missing or not a number reads 0, as 2.10 does."""
    text = node.findtext(tag)
    try:
        return float(text)
    except (TypeError, ValueError):
        return 0.0


def _objects(path: str) -> list[tuple]:
    """[(name, [xmin, ymin, xmax, ymax], difficult, truncated)] of one annotation file."""
    if not os.path.isfile(path):
        raise RuntimeError(f"{_NAME}: Invalid file path, {path} does not exist.")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        raise RuntimeError(f"{_NAME}: Invalid xml, failed to load {path}: the xml file is damaged or incorrect "
                           f"format. ({e})") from e
    found = root.findall("object")
    if not found:
        raise RuntimeError(f"{_NAME}: Invalid xml, the node of object is missing in {path}.")
    objects = []
    for node in found:
        box = node.find("bndbox")
        if box is None:
            raise RuntimeError(f"{_NAME}: Invalid xml, the node of bndbox is missing in {path}")
        xmin, ymin, xmax, ymax = (_number(box, c) for c in _COORDS)
        if xmin <= 0 or ymin <= 0 or xmax <= xmin or ymax <= ymin:
            shown = ", ".join(f"{v:g}" for v in (xmin, ymin, xmax, ymax))
            raise RuntimeError(f"{_NAME}: Invalid bndbox, the coordinate of bndbox in {path} should be greater "
                               f"than 0, but got {{{shown}}}")
        name = (node.findtext("name") or "").strip()
        if name:
            objects.append((name, [xmin, ymin, xmax, ymax], int(_number(node, "difficult")),
                            int(_number(node, "truncated"))))
    return objects


def _detection_columns(objects: list[tuple], class_indexing: dict) -> list[np.ndarray]:
    kept = [o for o in objects if o[0] in class_indexing]
    bbox = np.array([[x0, y0, x1 - x0, y1 - y0] for _, (x0, y0, x1, y1), _, _ in kept], np.float32)
    column = lambda values: np.array(values, np.uint32).reshape(-1, 1)  # noqa: E731
    return [bbox, column([class_indexing[o[0]] for o in kept]), column([o[2] for o in kept]),
            column([o[3] for o in kept])]


class VOCDataset(GeneratorDataset):
    """PASCAL VOC from `dataset_dir`; task "Segmentation" (default) or "Detection", usage
    names the list ImageSets/<Segmentation or Main>/<usage>.txt (default "train")."""

    def __init__(self, dataset_dir, task="Segmentation", usage="train", class_indexing=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, decode=False, sampler=None, num_shards=None,
                 shard_id=None, cache=None, extra_metadata=False, decrypt=None):
        dataset_dir = check_folder(_NAME, dataset_dir)
        check_type(_NAME, "task", task, str)
        check_type(_NAME, "usage", usage, str)
        if task not in ("Segmentation", "Detection"):
            raise ValueError(f"{_NAME}: Invalid task : {task}.")
        if class_indexing is not None:
            check_class_indexing(_NAME, class_indexing)
            if task == "Segmentation":
                raise ValueError(f"{_NAME}: class_indexing is not supported in Segmentation task.")
        check_bool(_NAME, "decode", decode)
        if decrypt is not None:
            raise NotImplementedError(f"{_NAME}: decrypt is not supported")
        self.task = task
        listing = check_file(_NAME, os.path.join(dataset_dir, "ImageSets", "Main" if task == "Detection"
                                                 else "Segmentation", usage + ".txt"))
        with open(listing) as f:
            ids = [line.strip() for line in f if line.strip()]
        image = lambda i: os.path.join(dataset_dir, "JPEGImages", i + ".jpg")  # noqa: E731
        if task == "Segmentation":
            images = [[image(i) for i in ids], [os.path.join(dataset_dir, "SegmentationClass", i + ".png")
                                                for i in ids]]
            values, columns = [], ["image", "target"]
        else:
            objects = {i: _objects(os.path.join(dataset_dir, "Annotations", i + ".xml")) for i in ids}
            if class_indexing is None:
                names = sorted({o[0] for objs in objects.values() for o in objs})
                class_indexing = {n: k for k, n in enumerate(names)}
            self.class_indexing = dict(class_indexing)
            ids = [i for i in ids if any(o[0] in class_indexing for o in objects[i])]
            per_row = [_detection_columns(objects[i], class_indexing) for i in ids]
            images, values = [[image(i) for i in ids]], [list(c) for c in zip(*per_row)] or [[]] * 4
            columns = ["image", "bbox", "label", "difficult", "truncate"]
        if extra_metadata:
            values.append([np.array(i) for i in ids])
            columns.append("_meta-filename")
        super().__init__(ImageRows(_NAME, images, values, image_decoder(decode)), columns,
                         num_samples=num_samples, num_parallel_workers=check_workers(_NAME, num_parallel_workers),
                         shuffle=shuffle, sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"{_NAME}({dataset_dir!r})"

    def get_class_indexing(self) -> dict:
        """{object name: label} (Detection only)."""
        if self.task != "Detection":
            raise NotImplementedError("Only 'Detection' support get_class_indexing.")
        return dict(self.class_indexing)
