"""graphcell.mindrecord against golden files written by MindSpore 2.10 (tests/data/mindrecord)."""
import gzip
import os
import shutil
import sqlite3

import numpy as np
import pytest

import graphcell.dataset as ds
from graphcell.mindrecord import FileReader, FileWriter, MindRecordFormatError, CsvToMR

DATA = os.path.join(os.path.dirname(__file__), "data", "mindrecord")


@pytest.fixture
def golden(tmp_path):
    for name in os.listdir(DATA):
        if name.endswith(".gz"):
            with gzip.open(os.path.join(DATA, name)) as src, open(tmp_path / name[:-3], "wb") as dst:
                shutil.copyfileobj(src, dst)
    return tmp_path


def test_reads_golden_files_exactly(golden):
    rows = list(FileReader(str(golden / "golden_mixed.mindrecord")).get_next())
    assert [sorted(r) for r in rows] == [["d", "data", "f", "file_name", "ids", "l", "label", "mat", "vec", "w"]] * 3
    r = rows[2]
    assert (r["d"], r["f"], r["file_name"], r["l"], r["label"], r["data"]) == (-2.0, 0.5, "f2.jpg", 10 ** 10 + 2, 1,
                                                                                 bytes([2, 3, 4, 5, 6]))
    np.testing.assert_array_equal(r["mat"], [[0, 1], [127, 128], [-129, 70000]])
    assert r["mat"].dtype == np.int64 and r["ids"].dtype == np.int32 and r["vec"].dtype == np.float32
    np.testing.assert_array_equal(r["ids"], [2, -600, 65536])
    np.testing.assert_array_equal(r["w"], np.array([2 / 3, -2.0]))
    assert [x["d"] for x in rows] == [0.1, 2.5, -2.0]
    pages = list(FileReader(str(golden / "golden_pages.mindrecord")).get_next())
    assert [(p["label"], p["img"], p["s"]) for p in pages] == [(-40 * i, bytes([i]) * 12000, "é" * (7 * i))
                                                               for i in range(5)]
    # a shard's name brings its siblings; 2.10 split the 5 rows 3 + 2
    assert [x["label"] for x in FileReader(str(golden / "golden_shard.mindrecord1")).get_next()] == [0, 1, 2, 3, 4]


def _make_golden(folder):
    """make_golden.py, run by graphcell in `folder`."""
    source = open(os.path.join(DATA, "make_golden.py")).read().replace("from mindspore.mindrecord",
                                                                        "from graphcell.mindrecord")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        exec(compile(source, "make_golden.py", "exec"), {"__name__": "make_golden"})
    finally:
        os.chdir(cwd)


def _tables(path):
    con = sqlite3.connect(path)
    try:
        return [con.execute(q).fetchall() for q in ("SELECT sql FROM sqlite_master", "SELECT * FROM INDEXES",
                                                    "SELECT * FROM SHARD_NAME")]
    finally:
        con.close()


def test_writer_reproduces_golden_bytes(golden, tmp_path_factory):
    mine = tmp_path_factory.mktemp("mine")
    _make_golden(mine)
    for name in ("golden_mixed.mindrecord", "golden_pages.mindrecord", "golden_shard.mindrecord0",
                 "golden_shard.mindrecord1"):
        assert (mine / name).read_bytes() == (golden / name).read_bytes(), name
        assert _tables(mine / (name + ".db")) == _tables(golden / (name + ".db")), name
    assert not [p for p in os.listdir(mine) if p.endswith(".tmp")]


def test_corrupt_and_truncated_files_name_the_file(golden):
    path = golden / "golden_pages.mindrecord"
    data = path.read_bytes()
    path.write_bytes(data[:-100])   # the last raw rows cut off
    with pytest.raises(MindRecordFormatError, match="golden_pages.mindrecord: row 3's raw data lies past the end"):
        list(FileReader(str(path)).get_next())
    path.write_bytes(data[:200])
    with pytest.raises(MindRecordFormatError, match="golden_pages.mindrecord: not a MindRecord file, or a truncated"):
        FileReader(str(path))
    path.write_bytes(b"\x10" + data[1:])
    with pytest.raises(MindRecordFormatError, match="golden_pages.mindrecord: the MindRecord header is not valid JSON"):
        FileReader(str(path))
    os.remove(golden / "golden_mixed.mindrecord.db")
    with pytest.raises(RuntimeError, match=r"golden_mixed.mindrecord.db of .* does not exist"):
        FileReader(str(golden / "golden_mixed.mindrecord"))


def test_writer_checks():
    w = FileWriter("/tmp/never_written.mindrecord", overwrite=True)
    with pytest.raises(RuntimeError, match=r"header size: 1024 should be in range \[16384 bytes, 134217728 bytes\]"):
        w.set_header_size(1024)   # 2.10's message
    with pytest.raises(RuntimeError, match=r"page size: 1024 should be in range \[32768 bytes, 268435456 bytes\]"):
        w.set_page_size(1024)
    with pytest.raises(ValueError, match="'x' has type 'int8'"):
        w.add_schema({"x": {"type": "int8"}})


def test_append_then_mind_dataset_shards_with_padding(golden):
    # 2.10, same steps (append by 2.10 or graphcell gives the same rows):
    # shards 0/1/2 of 3 read [0, 9, 4], [1, 9, 9], [2, 3, -1]
    w = FileWriter.open_for_append(str(golden / "golden_shard.mindrecord0"))
    w.write_raw_data([{"label": 9, "name": "z"}] * 3)
    w.commit()
    got = [[int(r["label"]) for r in ds.MindDataset(str(golden / "golden_shard.mindrecord0"), columns_list=["label"],
                                                   num_shards=3, shard_id=s, shuffle=False,
                                                   padded_sample={"label": -1, "name": "pad"},
                                                   num_padded=1).create_dict_iterator(output_numpy=True)]
           for s in range(3)]
    assert got == [[0, 9, 4], [1, 9, 9], [2, 3, -1]]


def test_mind_dataset_types_and_save_round_trip(golden, tmp_path):
    d = ds.MindDataset(str(golden / "golden_mixed.mindrecord"), shuffle=False)
    assert d.get_col_names() == ["d", "data", "f", "file_name", "ids", "l", "label", "mat", "vec", "w"]
    row = next(d.create_dict_iterator(output_numpy=True, num_epochs=1))
    # 2.10: float64 (), S1 (1,), float32 (), <U6 (), int32 (3,), int64 (), int32 (), int64 (1, 2), float32 (2,), ...
    assert [(row[k].dtype.str[1:], row[k].shape) for k in ("d", "data", "f", "file_name", "label", "mat")] == \
        [("f8", ()), ("S1", (1,)), ("f4", ()), ("U6", ()), ("i4", ()), ("i8", (1, 2))]
    src = ds.NumpySlicesDataset({"x": np.arange(5, dtype=np.int32), "y": np.arange(10.0).reshape(5, 2)},
                                shuffle=False)
    src.save(str(tmp_path / "saved.mindrecord"), 2)
    back = ds.MindDataset(str(tmp_path / "saved.mindrecord0"), shuffle=False)
    rows = [(int(r["x"]), r["y"].tolist()) for r in back.create_dict_iterator(output_numpy=True)]
    assert rows == [(i, [2.0 * i, 2.0 * i + 1]) for i in range(5)]


def test_csv_to_mr(tmp_path):
    (tmp_path / "t.csv").write_text("a,b,c\n1,2.5,x\n3,4,y\n")
    CsvToMR(str(tmp_path / "t.csv"), str(tmp_path / "t.mindrecord")).transform()
    assert list(FileReader(str(tmp_path / "t.mindrecord")).get_next()) == [{"a": 1, "b": 2.5, "c": "x"},
                                                                         {"a": 3, "b": 4.0, "c": "y"}]


def _pack_ints_reference(values):
    """2.10's int compression written out element by element (the layout _format.pack_ints documents)."""
    flat = [int(v) for v in np.asarray(values).ravel()]
    widths = [next(w for w in (1, 2, 4, 8) if -(1 << (8 * w - 1)) <= v < 1 << (8 * w - 1)) for v in flat]
    codes = [{1: 0, 2: 1, 4: 2, 8: 3}[w] for w in widths] + [0] * (-len(flat) % 4)
    code_bytes = bytes((codes[i] << 6) | (codes[i + 1] << 4) | (codes[i + 2] << 2) | codes[i + 3]
                       for i in range(0, len(codes), 4))
    body = b"".join(v.to_bytes(w, "little", signed=True) for v, w in zip(flat, widths))
    return len(flat).to_bytes(4, "big") + code_bytes + body


def test_int_compression_matches_element_by_element_layout():
    from graphcell.mindrecord._format import pack_ints, unpack_ints
    rng = np.random.default_rng(0)
    edges = [0, 127, 128, -128, -129, 32767, 32768, -32769, 2**31 - 1, 2**31, -2**31 - 1, 2**63 - 1, -2**63]
    cases = [np.array([], np.int64), np.array(edges, np.int64), np.array(edges[:9], np.int32).reshape(3, 3)]
    cases += [rng.integers(-s, s, n) for s, n in ((100, 5), (2**14, 7), (2**40, 300), (2**62, 1000))]
    for values in cases:
        blob = pack_ints(values)
        assert blob == _pack_ints_reference(values)
        # arrays over 255 body bytes: the per-element reader used to wrap its uint8 offset and misread them
        np.testing.assert_array_equal(unpack_ints(blob, "w"), values.ravel().astype(np.int64))
        with pytest.raises(MindRecordFormatError, match="truncated"):
            unpack_ints(blob[:-1], "w") if len(values) else unpack_ints(b"\0\0\0\5", "w")
