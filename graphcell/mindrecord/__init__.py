"""graphcell.mindrecord: MindSpore's own dataset file format (`mindspore.mindrecord`).

    writer = FileWriter("data.mindrecord", shard_num=1, overwrite=True)
    writer.add_schema({"image": {"type": "bytes"}, "label": {"type": "int32"}}, "my data")
    writer.write_raw_data([{"image": jpeg_bytes, "label": 3}, ...])
    writer.commit()
    for row in FileReader("data.mindrecord").get_next(): ...
    graphcell.dataset.MindDataset("data.mindrecord")     # the same rows in a pipeline

Files written here are read by MindSpore 2.10 and the reverse; the layout is in _format.py.
"""
from ._format import MindRecordFormatError  # noqa: F401
from .convert import Cifar10ToMR, Cifar100ToMR, CsvToMR, ImageNetToMR, MnistToMR, TFRecordToMR  # noqa: F401
from .reader import FileReader  # noqa: F401
from .writer import FAILED, SUCCESS, FileWriter  # noqa: F401


def set_enc_key(enc_key):
    """2.10 encrypts MindRecord files with a key; graphcell writes and reads plain files only."""
    if enc_key is not None:
        raise NotImplementedError("set_enc_key: graphcell does not encrypt MindRecord files (only None is accepted)")


def set_enc_mode(enc_mode="AES-GCM"):
    raise NotImplementedError("set_enc_mode: graphcell does not encrypt MindRecord files")


def set_dec_mode(dec_mode="AES-GCM"):
    raise NotImplementedError("set_dec_mode: graphcell does not decrypt MindRecord files")


class MindPage:
    """MindSpore's MindPage (rows grouped by an index field's value); not provided."""

    def __init__(self, file_name, num_consumer=4):
        raise NotImplementedError("MindPage is not provided by graphcell; read the rows with FileReader or "
                                  "graphcell.dataset.MindDataset and group them by the field")
