"""CocoDataset: COCO images in dataset_dir and a JSON annotation file.

As measured on MindSpore 2.10: a row per entry of "images", in that order, for the images
that have annotations (others are skipped; a repeated entry is read twice). Columns after
"image" (raw bytes uint8 [n], or decoded RGB with decode=True), one row per annotation:
  Detection   bbox float32 [k, 4], category_id uint32 [k, 1], iscrowd uint32 [k, 1] (default 0)
  Stuff       segmentation float32 [m, L] (one row per polygon, or the RLE counts of an
              iscrowd annotation), iscrowd uint32 [k, 1]
  Keypoint    keypoints float32 [k, L], num_keypoints uint32 [k, 1]
  Panoptic    bbox, category_id, iscrowd, area (uint32, truncated) of each segments_info entry
  Captioning  captions: strings [k, 1]
Rows of different lengths are padded with -1. extra_metadata=True adds "_meta-filename"
(file_name up to its first dot), which iterators leave out until it is renamed.
"""
from __future__ import annotations

import json
import os

import numpy as np

from ._checks import check_bool, check_file, check_folder, check_type, check_workers
from ._image_rows import ImageRows, image_decoder, pad_rows
from .sources import GeneratorDataset

_NAME = "CocoDataset"
_COLUMNS = {"Detection": ["bbox", "category_id", "iscrowd"], "Stuff": ["segmentation", "iscrowd"],
            "Keypoint": ["keypoints", "num_keypoints"], "Panoptic": ["bbox", "category_id", "iscrowd", "area"],
            "Captioning": ["captions"]}


def _uint_column(values) -> np.ndarray:
    return np.array([int(v) for v in values], np.uint32).reshape(-1, 1)


class _Annotations:
    """The annotation file, with 2.10's messages for what is missing from it."""

    def __init__(self, path: str):
        self.path = path
        try:
            with open(path, encoding="utf-8") as f:
                self.data = json.load(f)
        except ValueError as e:
            raise RuntimeError(f"{_NAME}: Invalid annotation file, Coco Dataset annotation file:{path} load failed, "
                               f"error description: {e}") from e

    def fail(self, what: str):
        raise RuntimeError(f"{_NAME}: Invalid annotation, {what}")

    def node(self, key: str):
        if key not in self.data:
            self.fail(f"the attribute of '{key}' is missing in annotation file: {self.path}.")
        return self.data[key]

    def field(self, entry: dict, key: str):
        if key not in entry:
            self.fail(f"the attribute of '{key}' is missing in annotation file: {self.path}.")
        return entry[key]


def _stuff_segments(ann: _Annotations, entry: dict) -> list:
    segmentation = entry.get("segmentation")
    if entry.get("iscrowd", 0):
        if not isinstance(segmentation, dict) or "counts" not in segmentation:
            ann.fail(f"the attribute of 'counts' is missing in annotation file: {ann.path}.")
        counts = segmentation["counts"]
        if not isinstance(counts, list):
            ann.fail(f"the RLE 'counts' must be a list of numbers (compressed RLE strings are not read), got "
                     f"{type(counts).__name__} in annotation file: {ann.path}.")
        return [counts]
    if not isinstance(segmentation, list):
        ann.fail(f"the attribute of 'counts' is missing in annotation file: {ann.path}.")
    return list(segmentation)


def _rows_per_image(ann: _Annotations, task: str, image_ids: set, category_ids: dict) -> dict:
    """{image id: [annotation entry, ...]} in the file's order."""
    per_image: dict = {}
    for entry in ann.node("annotations"):
        image_id = ann.field(entry, "image_id")
        if image_id not in image_ids:
            ann.fail(f"the attribute of 'image_id': {image_id} is missing in the node of 'image' from annotation "
                     f"file: {ann.path}")
        if task == "Detection":
            ann.field(entry, "bbox")
            if entry.get("category_id") not in category_ids:
                ann.fail(f"the attribute of 'category_id': {entry.get('category_id')} is missing in the node of "
                         f"'categories' from annotation file: {ann.path}")
        elif task == "Keypoint":
            for key, shown in (("keypoints", "keypoint"), ("num_keypoints", "num_keypoint")):
                if key not in entry:
                    ann.fail(f"the '{shown}' node is missing in annotation file: {ann.path} where 'image_id': "
                             f"{entry.get('id')}.")
        elif task == "Captioning":
            ann.field(entry, "caption")
        elif task == "Panoptic":
            if "segments_info" not in entry:
                ann.fail(f"the 'segments_info' node is missing in annotation file: {ann.path} where 'image_id': "
                         f"{image_id}.")
            for segment in entry["segments_info"]:
                for key in ("bbox", "category_id", "iscrowd", "area"):
                    if key not in segment:
                        ann.fail(f"the attribute of '{key}' is missing in the node of 'segments_info' where "
                                 f"'image_id': {image_id} from annotation file: {ann.path}.")
                if segment["category_id"] not in category_ids:
                    ann.fail(f"the attribute of 'category_id': {segment['category_id']} is missing in the node "
                             f"of 'categories' from {ann.path}.")
        per_image.setdefault(image_id, []).append(entry)
    return per_image


def _columns(ann: _Annotations, task: str, entries: list) -> list:
    if task == "Detection":
        return [pad_rows([e["bbox"] for e in entries]), _uint_column(e["category_id"] for e in entries),
                _uint_column(e.get("iscrowd", 0) for e in entries)]
    if task == "Stuff":
        segments = [s for e in entries for s in _stuff_segments(ann, e)]
        return [pad_rows(segments), _uint_column(e.get("iscrowd", 0) for e in entries)]
    if task == "Keypoint":
        return [pad_rows([e["keypoints"] for e in entries]), _uint_column(e["num_keypoints"] for e in entries)]
    if task == "Panoptic":
        segments = [s for e in entries for s in e["segments_info"]]
        return [pad_rows([s["bbox"] for s in segments]), _uint_column(s["category_id"] for s in segments),
                _uint_column(s["iscrowd"] for s in segments), _uint_column(s["area"] for s in segments)]
    return [np.array([[e["caption"]] for e in entries])]


class CocoDataset(GeneratorDataset):
    """COCO: images in `dataset_dir`, annotations in `annotation_file`; task "Detection"
    (default), "Stuff", "Keypoint", "Panoptic" or "Captioning"."""

    def __init__(self, dataset_dir, annotation_file, task="Detection", num_samples=None, num_parallel_workers=None,
                 shuffle=None, decode=False, sampler=None, num_shards=None, shard_id=None, cache=None,
                 extra_metadata=False, decrypt=None):
        dataset_dir = check_folder(_NAME, dataset_dir)
        if not isinstance(annotation_file, (str, os.PathLike)):
            raise TypeError(f"{_NAME}: path: {annotation_file!r} is not string")
        annotation_file = check_file(_NAME, annotation_file)
        check_type(_NAME, "task", task, str)
        if task not in _COLUMNS:
            raise ValueError(f"{_NAME}: Invalid task type: {task}.")
        check_bool(_NAME, "decode", decode)
        if decrypt is not None:
            raise NotImplementedError(f"{_NAME}: decrypt is not supported")
        self.task = task
        ann = _Annotations(annotation_file)
        images = ann.node("images")
        if not images:
            ann.fail(f"the 'image' node is missing in annotation file: {annotation_file}.")
        files = {}
        for entry in images:
            files.setdefault(entry.get("id"), ann.field(entry, "file_name"))
        categories = ann.node("categories") if task in ("Detection", "Panoptic") else ann.data.get("categories", [])
        if not categories and task in ("Detection", "Panoptic"):
            ann.fail(f"the 'categories' node is missing in annotation file: {annotation_file}.")
        self._categories = [(c.get("name"), c.get("id"), c.get("isthing")) for c in categories]
        per_image = _rows_per_image(ann, task, set(files), {c[1]: c for c in self._categories})
        rows = [entry for entry in images if entry.get("id") in per_image]
        names = [entry["file_name"] for entry in rows]
        values = [list(c) for c in zip(*(_columns(ann, task, per_image[e["id"]]) for e in rows))]
        values = values or [[] for _ in _COLUMNS[task]]
        columns = ["image", *_COLUMNS[task]]
        if extra_metadata:
            values.append([np.array(n.split(".")[0]) for n in names])
            columns.append("_meta-filename")
        super().__init__(ImageRows(_NAME, [[os.path.join(dataset_dir, n) for n in names]], values,
                                   image_decoder(decode)), columns, num_samples=num_samples,
                         num_parallel_workers=check_workers(_NAME, num_parallel_workers), shuffle=shuffle,
                         sampler=sampler, num_shards=num_shards, shard_id=shard_id)
        self._name = f"{_NAME}({dataset_dir!r})"

    def get_class_indexing(self) -> dict:
        """{category name: [id]} for Detection, {name: [id, isthing]} for Panoptic."""
        if self.task not in ("Detection", "Panoptic"):
            raise NotImplementedError("Only 'Detection' and 'Panoptic' support get_class_indexing.")
        if self.task == "Detection":
            return {name: [cid] for name, cid, _ in self._categories}
        return {name: [cid, isthing] for name, cid, isthing in self._categories}
