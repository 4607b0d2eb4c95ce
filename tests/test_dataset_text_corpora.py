"""Text corpus datasets over small files in their published layouts; every expected row, order,
type and message was measured on MindSpore 2.10 reading the same files."""
import json

import numpy as np
import pytest

import graphcell.dataset as ds


def _write(root, files: dict):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return str(root)


def _rows(d):
    return [[v.tolist() for v in r] for r in d.create_tuple_iterator(num_epochs=1, output_numpy=True)]


def test_imdb_layout_order_and_labels(tmp_path):
    files = {f"{u}/{lab}/{k}_{7 + k}.txt": f"{u} {lab} {k}" for u in ("train", "test") for lab in ("pos", "neg")
             for k in range(2)}
    files.update({"train/unsup/0_0.txt": "unlabelled", "train/pos/10_9.txt": "first\nlast line\n",
                  "train/neg/0_7.txt": "neg\r\n"})
    root = _write(tmp_path, files)
    d = ds.IMDBDataset(root, shuffle=False)
    assert d.get_col_names() == ["text", "label"] and d.get_dataset_size() == 9
    # train then test, pos then neg, file names sorted ("10_9" before "1_8"); a file's last line
    assert _rows(d) == [["train pos 0", 1], ["last line", 1], ["train pos 1", 1], ["neg\r", 0], ["train neg 1", 0],
                        ["test pos 0", 1], ["test pos 1", 1], ["test neg 0", 0], ["test neg 1", 0]]
    assert next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))[1].dtype == np.int32
    shard = ds.IMDBDataset(root, usage="train", shuffle=False, num_shards=2, shard_id=1)
    assert [r[0] for r in _rows(shard)] == ["last line", "neg\r", "train pos 0"]
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', 'all'\]"):
        ds.IMDBDataset(root, usage="valid")


def test_csv_corpora_columns_and_order(tmp_path):
    root = _write(tmp_path / "ag", {"train.csv": '"3","Wall St. Bears","Reuters - Short-sellers, ""quoted"""\n'
                                                 '"4","Title two","Desc two"\n',
                                    "test.csv": '"1","Test title","Test desc"\n'})
    d = ds.AGNewsDataset(root, shuffle=False, num_parallel_workers=1)
    assert d.get_col_names() == ["index", "title", "description"]
    assert _rows(d) == [["1", "Test title", "Test desc"], ["3", "Wall St. Bears", 'Reuters - Short-sellers, "quoted"'],
                        ["4", "Title two", "Desc two"]]                    # "all": test.csv first
    assert _rows(ds.AGNewsDataset(root, usage="test")) == [["1", "Test title", "Test desc"]]
    columns = {ds.DBpediaDataset: ["class", "title", "content"], ds.YelpReviewDataset: ["label", "text"],
               ds.AmazonReviewDataset: ["label", "title", "content"], ds.SogouNewsDataset: ["index", "title", "content"],
               ds.YahooAnswersDataset: ["class", "title", "content", "answer"]}
    for cls, names in columns.items():
        line = ",".join(f'"{k}{name}"' for k, name in enumerate(names)) + "\n"
        folder = _write(tmp_path / cls.__name__, {"train.csv": line, "test.csv": line})
        d = cls(folder, usage="train", shuffle=False)
        assert d.get_col_names() == names and _rows(d) == [[f"{k}{n}" for k, n in enumerate(names)]]
    with pytest.raises(ValueError, match="The folder .*nope does not exist or is not a directory"):
        ds.AGNewsDataset(str(tmp_path / "nope"))


def test_sst2_usages(tmp_path):
    root = _write(tmp_path, {"train.tsv": "sentence\tlabel\nhide new secretions \t0\ncontains no wit \t1\n",
                             "dev.tsv": "sentence\tlabel\nit 's a charming journey . \t1\n",
                             "test.tsv": "index\tsentence\n0\tuneasy mishmash .\n1\tthis film 's so good\n"})
    d = ds.SST2Dataset(root, shuffle=False)                                   # default: train
    assert d.get_col_names() == ["sentence", "label"]
    assert _rows(d) == [["hide new secretions ", "0"], ["contains no wit ", "1"]]
    assert _rows(ds.SST2Dataset(root, usage="dev")) == [["it 's a charming journey . ", "1"]]
    test = ds.SST2Dataset(root, usage="test", shuffle=False)
    assert test.get_col_names() == ["sentence"] and _rows(test) == [["uneasy mishmash ."], ["this film 's so good"]]
    with pytest.raises(ValueError, match=r"valid set of \['train', 'test', 'dev'\]"):
        ds.SST2Dataset(root, usage="all")


def test_line_corpora(tmp_path):
    wiki = _write(tmp_path / "wiki", {"wiki.train.tokens": " \n = Valkyria = \n\n Senjō no Valkyria 3 .\n",
                                      "wiki.valid.tokens": " valid line \n", "wiki.test.tokens": " test line \n"})
    assert [r[0] for r in _rows(ds.WikiTextDataset(wiki, shuffle=False, num_parallel_workers=1))] == [
        " test line ", " ", " = Valkyria = ", " Senjō no Valkyria 3 .", " valid line "]   # sorted files, no empty lines
    ptb = _write(tmp_path / "ptb", {"ptb.train.txt": " aer banknote \n pierre <unk> N \n", "ptb.valid.txt": " may \n",
                                    "ptb.test.txt": " no it was n't \n"})
    d = ds.PennTreebankDataset(ptb, usage="train", shuffle=False)
    assert d.get_col_names() == ["text"] and _rows(d) == [[" aer banknote "], [" pierre <unk> N "]]
    enwik = _write(tmp_path / "enwik", {"enwik9": "<mediawiki>\n  <page>\n\n  text\n"})
    assert [r[0] for r in _rows(ds.EnWik9Dataset(enwik, shuffle=False))] == ["<mediawiki>", "  <page>", "", "  text"]
    with pytest.raises(ValueError, match=r"valid set of \['train', 'valid', 'test', 'all'\]"):
        ds.WikiTextDataset(wiki, usage="dev")


def test_clue_tasks(tmp_path):
    root = _write(tmp_path, {
        "afqmc.json": '{"sentence1": "双十一花呗", "sentence2": "提额", "label": "0"}\n{"sentence1": "a", "sentence2": "b", '
                      '"label": 1}\n',
        "afqmc_test.json": '{"id": 0, "sentence1": "s1", "sentence2": "s2"}\n',
        "wsc.json": '{"target": {"span2_index": 37, "span1_index": 5, "span1_text": "床", "span2_text": "它"}, '
                    '"idx": 0, "label": "false", "text": "我 床"}\n',
        "csl_test.json": '{"id": 1, "abst": "x", "keyword": ["k1", "k2"]}\n'})
    d = ds.CLUEDataset(f"{root}/afqmc.json", shuffle=False)
    assert d.get_col_names() == ["label", "sentence1", "sentence2"]
    assert _rows(d) == [["0", "双十一花呗", "提额"], [1, "a", "b"]]                 # a JSON number is uint32
    row = next(ds.CLUEDataset(f"{root}/afqmc_test.json", usage="test").create_tuple_iterator(output_numpy=True))
    assert [v.tolist() for v in row] == [0, "s1", "s2"] and row[0].dtype == np.uint32
    wsc = ds.CLUEDataset(f"{root}/wsc.json", task="WSC", usage="eval")
    assert wsc.get_col_names() == ["idx", "label", "span1_index", "span1_text", "span2_index", "span2_text", "text"]
    assert _rows(wsc) == [[0, "false", 5, "床", 37, "它", "我 床"]]
    assert _rows(ds.CLUEDataset(f"{root}/csl_test.json", task="CSL", usage="test")) == [["x", 1, ["k1", "k2"]]]
    with pytest.raises(ValueError, match="task should be 'AFQMC', 'TNEWS', 'IFLYTEK', 'CMNLI', 'WSC' or 'CSL'."):
        ds.CLUEDataset(f"{root}/afqmc.json", task="XX")
    with pytest.raises(ValueError, match="usage should be 'train', 'test' or 'eval'."):
        ds.CLUEDataset(f"{root}/afqmc.json", usage="dev")
    with pytest.raises(RuntimeError, match="failed to find key: label"):
        ds.CLUEDataset(f"{root}/afqmc_test.json")


def test_squad(tmp_path):
    train = {"version": "1.1", "data": [{"title": "T", "paragraphs": [
        {"context": "The school has a Catholic character.", "qas": [
            {"answers": [{"answer_start": 17, "text": "Catholic"}, {"answer_start": 17, "text": "Catholic character"}],
             "question": "What character?", "id": "a1"},
            {"answers": [], "question": "Unanswerable?", "id": "a2", "is_impossible": True}]}]}]}
    dev = {"version": "1.1", "data": [{"title": "D", "paragraphs": [{"context": "Dev ctx", "qas": [
        {"answers": [{"answer_start": 0, "text": "Dev"}], "question": "Q?", "id": "d1"}]}]}]}
    root = _write(tmp_path, {"train-v1.1.json": json.dumps(train), "dev-v1.1.json": json.dumps(dev)})
    d = ds.SQuADDataset(root, shuffle=False, num_parallel_workers=1)
    assert d.get_col_names() == ["context", "question", "text", "answer_start"] and d.get_dataset_size() == 3
    rows = _rows(d)                                                           # train, then dev
    assert rows == [["The school has a Catholic character.", "What character?", ["Catholic", "Catholic character"],
                     [17, 17]],
                    ["The school has a Catholic character.", "Unanswerable?", [""], [4294967295]],
                    ["Dev ctx", "Q?", ["Dev"], [0]]]
    first = next(d.create_tuple_iterator(num_epochs=1, output_numpy=True))
    assert first[3].dtype == np.uint32 and first[2].shape == (2,)
    with pytest.raises(RuntimeError, match="failed to find SQuAD train data file"):
        ds.SQuADDataset(_write(tmp_path / "empty", {"readme.txt": ""}), usage="train")


def test_tagged_sentence_corpora(tmp_path):
    conll = _write(tmp_path / "conll", {"train.txt": "Confidence NN B-NP\nin IN B-PP\n\nChancellor NNP O\n",
                                        "test.txt": "Rockwell NNP B-NP\n\n\nsaid VBD B-VP\n"})
    d = ds.CoNLL2000Dataset(conll, shuffle=False, num_parallel_workers=1)
    assert d.get_col_names() == ["word", "pos_tag", "chunk_tag"]
    # measured: "all" reads test.txt first; a sentence no blank line ends is dropped
    assert _rows(d) == [[["Rockwell"], ["NNP"], ["B-NP"]], [["Confidence", "in"], ["NN", "IN"], ["B-NP", "B-PP"]]]
    with pytest.raises(ValueError, match=r"valid set of \['train', 'test', 'all'\]"):
        ds.CoNLL2000Dataset(conll, usage="valid")
    udpos = _write(tmp_path / "udpos", {"en-ud-tag.v2.train.txt": "Al\tPROPN\tNNP\n-\tPUNCT\tHYPH\n\nSecond\tX\tY\n\n",
                                        "en-ud-tag.v2.dev.txt": "dev a b\n\n"})
    d = ds.UDPOSDataset(udpos, usage="train", shuffle=False)
    assert d.get_col_names() == ["word", "universal", "stanford"]
    assert _rows(d) == [[["Al", "-"], ["PROPN", "PUNCT"], ["NNP", "HYPH"]], [["Second"], ["X"], ["Y"]]]
    with pytest.raises(RuntimeError, match="each line should contain three columns, representing word, universal "
                                           "and stanford"):
        ds.UDPOSDataset(udpos, usage="valid")             # the dev file, split on tabs


def test_multi30k_pairs(tmp_path):
    files = {}
    for part in ("training/train", "validation/val", "mmt16_task1_test/test"):
        name = part.split("/")[1]
        files[f"{part}.en"] = f"{name} en one\n\n{name} en two\n"
        files[f"{part}.de"] = f"{name} de eins\n\n{name} de zwei\n"
    root = _write(tmp_path, files)
    d = ds.Multi30kDataset(root, shuffle=False, num_parallel_workers=1)
    assert d.get_col_names() == ["text", "translation"]
    # measured: "all" is test, train, val; empty lines skipped
    assert [r[0] for r in _rows(d)] == ["test en one", "test en two", "train en one", "train en two", "val en one",
                                        "val en two"]
    assert _rows(ds.Multi30kDataset(root, "train", ["de", "en"], shuffle=False)) == [
        ["train de eins", "train en one"], ["train de zwei", "train en two"]]
    with pytest.raises(ValueError, match=r"language_pair can only be \['en', 'de'\] or \['en', 'de'\], but got "
                                         r"\['fr', 'en'\]"):
        ds.Multi30kDataset(root, language_pair=["fr", "en"])


def _iwslt_xml(language, sentences):
    docs = "".join(f'<doc docid="{i}" genre="lectures">\n<url>http://x/{i}</url>\n<talkid>{i}</talkid>\n'
                   + "".join(f'<seg id="{j + 1}"> {s} </seg>\n' for j, s in enumerate(doc)) + "</doc>\n"
                   for i, doc in enumerate(sentences))
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<mteval>\n<srcset setid="x" srclang="{language}">\n{docs}' \
           '</srcset>\n</mteval>\n'


def _iwslt_files(folder, year, source, target, sets):
    files = {}
    for language in (source, target):
        files[f"{folder}/train.tags.{source}-{target}.{language}"] = (
            f"<url>http://u</url>\n<speaker>S</speaker>\n<title>Title {language}</title>\n  {language} first  line \n"
            f"{language} second a<b\nhello <url> mid\n<reviewer href=\"x\">R</reviewer>\n\t{language} tab\t\n"
            f"<b>bold</b> {language}\n{language} </doc>\n{language} third")
        for s in sets:
            files[f"{folder}/IWSLT{year}.TED.{s}.{source}-{target}.{language}.xml"] = _iwslt_xml(
                language, [[f"{language} {s} d0s0", f"{language} {s} d0s1"], [f"{language} {s} d1s0 &amp; x"]])
    return files


def test_iwslt(tmp_path):
    # every row, order and message measured on MindSpore 2.10 with these files (2 reading workers)
    root = _write(tmp_path, _iwslt_files("texts/de/en/de-en", 16, "de", "en", ["tst2013", "tst2014", "dev2010"]))
    train = [("de first  line", "en first  line"), ("de second a<b", "en second a<b"), ("\tde tab\t", "\ten tab\t"),
             ("<b>bold</b> de", "<b>bold</b> en"), ("de third", "en third")]
    d = ds.IWSLT2016Dataset(root, "train", shuffle=False)
    assert d.get_col_names() == ["text", "translation"] and [tuple(r) for r in _rows(d)] == train

    def sentences(language, s):
        return [f"{language} {s} d0s0", f"{language} {s} d0s1", f"{language} {s} d1s0 & x"]
    valid, test = (list(zip(sentences("de", s), sentences("en", s))) for s in ("tst2013", "tst2014"))
    assert [tuple(r) for r in _rows(ds.IWSLT2016Dataset(root, "valid", shuffle=False))] == valid
    assert [tuple(r) for r in _rows(ds.IWSLT2016Dataset(root, "test", shuffle=False))] == test
    d = ds.IWSLT2016Dataset(root, valid_set="dev2010", test_set="tst2013", shuffle=False, num_parallel_workers=2)
    dev = list(zip(sentences("de", "dev2010"), sentences("en", "dev2010")))
    # train, valid, test; two workers interleave the first two files' rows
    assert [tuple(r) for r in _rows(d)] == [train[0], dev[0], train[1], dev[1], train[2], dev[2]] + train[3:] + valid
    assert d.get_dataset_size() == 11

    root17 = _write(tmp_path / "17", _iwslt_files("texts/DeEnItNlRo/DeEnItNlRo/DeEnItNlRo-DeEnItNlRo", 17, "it", "ro",
                                                  ["dev2010", "tst2010"]))
    d = ds.IWSLT2017Dataset(root17, "test", language_pair=("it", "ro"), shuffle=False)
    assert [tuple(r) for r in _rows(d)] == list(zip(sentences("it", "tst2010"), sentences("ro", "tst2010")))
    assert len(_rows(ds.IWSLT2017Dataset(root17, language_pair=["it", "ro"]))) == 11

    with pytest.raises(ValueError, match=r"Input language_pair\['en', 'en'\] is not within the valid set of "
                                         r"\[\['en', 'ar'\], \['en', 'ar'\], \['en', 'de'\]"):
        ds.IWSLT2016Dataset(root, language_pair=["en", "en"])
    with pytest.raises(ValueError, match=r"Input language_pair\['de', 'fr'\] .* \['nl', 'it'\], \['nl', 'ro'\]\]\.$"):
        ds.IWSLT2017Dataset(root17, language_pair=["de", "fr"])
    with pytest.raises(TypeError, match="language_pair should be a type list or tuple of length 2"):
        ds.IWSLT2016Dataset(root, language_pair="de")
    with pytest.raises(ValueError, match=r"Input test_set is not within the valid set of \['dev2010', 'tst2010', "):
        ds.IWSLT2016Dataset(root, test_set="tst2020")
    with pytest.raises(TypeError, match="Argument valid_set with value 1 is not of type"):
        ds.IWSLT2016Dataset(root, valid_set=1)
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['train', 'test', 'valid', "):
        ds.IWSLT2017Dataset(root17, "dev")
    with pytest.raises(ValueError, match="does not exist or is not a directory"):
        ds.IWSLT2016Dataset(str(tmp_path / "none"))
    with pytest.raises(RuntimeError, match="failed to load xml file: .*IWSLT17.TED.dev2010.de-en.de.xml"):
        ds.IWSLT2017Dataset(root17, "valid")
    _write(tmp_path, {"texts/de/en/de-en/train.tags.de-en.de": "de a\n\nde b\n"})
    with pytest.raises(RuntimeError, match="Invalid file, read an empty line"):
        ds.IWSLT2016Dataset(root, "train")
