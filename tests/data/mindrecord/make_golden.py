"""Writes the golden MindRecord files of tests/test_mindrecord.py with real MindSpore 2.10 (CPU).

Run from an empty scratch directory with MindSpore's python, then gzip the results into this folder:
    python make_golden.py && gzip -9 -n -k *.mindrecord* && cp *.gz <this folder>
"""
import glob
import os

import numpy as np
from mindspore.mindrecord import FileWriter

for f in glob.glob("golden_*.mindrecord*"):
    os.remove(f)


def small(writer):
    writer.set_header_size(1 << 14)   # the smallest 2.10 allows: 16 KB header, 32 KB pages
    writer.set_page_size(1 << 15)
    return writer


# every field type, two blob fields and an explicit index, one write_raw_data call
w = small(FileWriter("golden_mixed.mindrecord", shard_num=1, overwrite=True))
w.add_schema({"file_name": {"type": "string"}, "label": {"type": "int32"}, "data": {"type": "bytes"},
              "vec": {"type": "float32", "shape": [2]}, "mat": {"type": "int64", "shape": [-1, 2]},
              "ids": {"type": "int32", "shape": [-1]}, "d": {"type": "float64"}, "l": {"type": "int64"},
              "f": {"type": "float32"}, "w": {"type": "float64", "shape": [2]}}, "mixed_schema")
w.add_index(["file_name", "label"])
w.write_raw_data([{"file_name": f"f{i}.jpg", "label": i - 1, "data": bytes(range(i, 3 * i + 1)),
                   "vec": np.array([i, i + 0.5], np.float32),
                   "mat": np.array([[0, 1], [127, 128], [-129, 70000], [-2 ** 31 - 1, 2 ** 40]][: i + 1], np.int64),
                   "ids": np.array([i, -300 * i, 65536], np.int32), "d": [0.1, 2.5, -2.0][i],
                   "l": 10 ** 10 + i, "f": 0.25 * i, "w": np.array([i / 3, -i], np.float64)} for i in range(3)])
w.commit()

# one blob field (stored without a per-field length), rows over three blob pages
w = small(FileWriter("golden_pages.mindrecord", overwrite=True))
w.add_schema({"img": {"type": "bytes"}, "label": {"type": "int64"}, "s": {"type": "string"}}, "pages")
w.write_raw_data([{"img": bytes([i]) * 12000, "label": -40 * i, "s": "é" * (7 * i)} for i in range(5)])
w.commit()

# two shards, no add_index (every scalar field is indexed), no blob field
w = small(FileWriter("golden_shard.mindrecord", shard_num=2, overwrite=True))
w.add_schema({"label": {"type": "int32"}, "name": {"type": "string"}}, "shards")
w.write_raw_data([{"label": i, "name": "n" * i} for i in range(5)])
w.commit()
