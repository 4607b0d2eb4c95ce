"""graphcell.dataset: MindSpore's data pipeline (`mindspore.dataset`).

    ds = GeneratorDataset(source, ["image", "label"], shuffle=True, num_parallel_workers=2)
    ds = ds.map(normalise, input_columns="image").batch(32, drop_remainder=True)
    for data in ds.create_dict_iterator(num_epochs=epochs): ...   # per epoch

Rows are read on worker threads and batches prepared by a background thread (prefetch), so
the pipeline overlaps a jitted step. Orders are reproducible under `graphcell.set_seed`.
"""
from . import audio, config, text, transforms, vision  # noqa: F401 - mindspore.dataset.audio / .text / .transforms / .vision
from .config import (ErrorSamplesMode, get_callback_timeout, get_debug_mode, get_enable_watchdog,  # noqa: F401
                     get_error_samples_mode, get_multiprocessing_start_method,
                     get_multiprocessing_timeout_interval, get_num_parallel_workers, get_seed, set_seed)
from ._parallel import DatasetError  # noqa: F401
from .engine import (BatchDataset, BatchInfo, Dataset, MapDataset, RepeatDataset, ShuffleDataset,  # noqa: F401
                     SkipDataset, TakeDataset)
from .combine import ConcatDataset, FilterDataset, ProjectDataset, RenameDataset, ZipDataset  # noqa: F401
from .callbacks import DSCallback, WaitedDSCallback  # noqa: F401
from .iterators import DatasetIterator  # noqa: F401
from .padding import BucketBatchByLengthDataset, PaddedBatchDataset  # noqa: F401
from .padded import PaddedDataset  # noqa: F401
from .random_data import RandomDataset, Schema  # noqa: F401
from .sync import SyncWaitDataset  # noqa: F401
from .cifar import Cifar10Dataset, Cifar100Dataset  # noqa: F401
from .image_folder import ImageFolderDataset  # noqa: F401
from .mnist import FashionMnistDataset, KMnistDataset, MnistDataset  # noqa: F401
from .mnist_variants import EMnistDataset, QMnistDataset  # noqa: F401
from .fake_image import FakeImageDataset  # noqa: F401
from .stl10 import STL10Dataset  # noqa: F401
from .svhn import SVHNDataset  # noqa: F401
from .usps import USPSDataset  # noqa: F401
from .voc import VOCDataset  # noqa: F401
from .coco import CocoDataset  # noqa: F401
from .celeba import CelebADataset  # noqa: F401
from .manifest import ManifestDataset  # noqa: F401
from .samplers import (DistributedSampler, IterSampler, PKSampler, RandomSampler, Sampler,  # noqa: F401
                       SequentialSampler, SubsetRandomSampler, SubsetSampler, WeightedRandomSampler)
from .sources import GeneratorDataset, NumpySlicesDataset  # noqa: F401
from .text_files import CSVDataset, Shuffle, TextFileDataset  # noqa: F401
from .mindrecord_dataset import MindDataset  # noqa: F401
from .tfrecord import TFRecordDataset  # noqa: F401
from .imdb import IMDBDataset  # noqa: F401
from .text_corpora import (AGNewsDataset, AmazonReviewDataset, DBpediaDataset, EnWik9Dataset,  # noqa: F401
                           PennTreebankDataset, SogouNewsDataset, SST2Dataset, WikiTextDataset, YahooAnswersDataset,
                           YelpReviewDataset)
from .text_qa import CLUEDataset, SQuADDataset  # noqa: F401
from .text_tagging import CoNLL2000Dataset, UDPOSDataset  # noqa: F401
from .text_translation import IWSLT2016Dataset, IWSLT2017Dataset, Multi30kDataset  # noqa: F401
from .audio_corpora import (CMUArcticDataset, GTZANDataset, LibriTTSDataset, LJSpeechDataset,  # noqa: F401
                            SpeechCommandsDataset, TedliumDataset, YesNoDataset)
from .serialize import compare, deserialize, serialize, show  # noqa: F401


def zip(datasets):  # noqa: A001 - MindSpore's name
    """mindspore.dataset.zip: the datasets of a tuple side by side (see Dataset.zip)."""
    if not isinstance(datasets, tuple):
        raise TypeError(f"zip: datasets must be a tuple of datasets, got {type(datasets).__name__}")
    return ZipDataset(list(datasets))
