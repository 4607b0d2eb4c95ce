"""Converters from other formats to MindRecord (`mindspore.mindrecord.*ToMR`).

CsvToMR is provided (plain CSV). The others read formats that need pickle (the CIFAR python
batches), TensorFlow (TFRecord) or image trees; they are named here with a clear error.
"""
from __future__ import annotations

import csv

from .writer import SUCCESS, FileWriter


class CsvToMR:
    """A CSV file (header row of column names) -> MindRecord. Columns whose every value parses as
    an int become int64, then float64, else string (2.10's pandas-based typing). `columns_list`
    keeps only those columns; `partition_number` is the shard count."""

    def __init__(self, source, destination, columns_list=None, partition_number=1):
        self.source, self.destination = source, destination
        self.columns_list, self.partition_number = columns_list, partition_number

    def transform(self):
        with open(self.source, newline="", encoding="utf-8") as f:
            table = list(csv.reader(f))
        if not table:
            raise ValueError(f"CsvToMR: {self.source} is empty")
        names, body = table[0], table[1:]
        keep = self.columns_list or names
        unknown = [c for c in keep if c not in names]
        if unknown:
            raise ValueError(f"CsvToMR: columns {unknown} are not in {self.source}'s header {names}")
        columns = {c: [row[names.index(c)] for row in body] for c in keep}
        schema, typed = {}, {}
        for c, values in columns.items():
            for kind, convert in (("int64", int), ("float64", float)):
                try:
                    typed[c] = [convert(v) for v in values]
                    schema[c] = {"type": kind}
                    break
                except ValueError:
                    continue
            else:
                typed[c], schema[c] = values, {"type": "string"}
        writer = FileWriter(self.destination, self.partition_number)
        writer.add_schema(schema, "csv_schema")
        writer.write_raw_data([{c: typed[c][i] for c in keep} for i in range(len(body))])
        return writer.commit()

    def run(self):
        return self.transform()


def _unsupported(name: str, why: str):
    class Converter:
        def __init__(self, *args, **kwargs):
            raise NotImplementedError(f"{name} is not provided by graphcell: {why}. Write the rows with "
                                      "graphcell.mindrecord.FileWriter instead")
    Converter.__name__ = Converter.__qualname__ = name
    return Converter


Cifar10ToMR = _unsupported("Cifar10ToMR", "it reads CIFAR-10's python batches, which are pickle files "
                                          "(graphcell never unpickles)")
Cifar100ToMR = _unsupported("Cifar100ToMR", "it reads CIFAR-100's python batches, which are pickle files "
                                            "(graphcell never unpickles)")
TFRecordToMR = _unsupported("TFRecordToMR", "it needs TensorFlow to parse TFRecord files")
ImageNetToMR = _unsupported("ImageNetToMR", "not implemented")
MnistToMR = _unsupported("MnistToMR", "not implemented")
SUCCESS = SUCCESS
