"""Without an optional extra, or with a corrupted data file: a clear refusal
that names what is missing and how to install it, before anything is written.

A module set to ``None`` in ``sys.modules`` cannot be imported (and
``importlib.util.find_spec`` does not find it): an installation without it.
"""

import sys

import numpy as np
import pytest
from sklearn.datasets import make_moons

from smiclust import SMIClustering
from smiclust.cli import main
from smiclust.datasets import DataChecksumError, _loaders


def _without(monkeypatch, *modules):
    for name in modules:
        monkeypatch.setitem(sys.modules, name, None)


def _files(directory):
    return {p.relative_to(directory): p.read_bytes()
            for p in directory.rglob("*") if p.is_file()}


def test_plot_embedding_names_the_plot_extra(monkeypatch):
    from smiclust.plotting import plot_embedding

    X, _ = make_moons(60, noise=0.05, random_state=0)
    model = SMIClustering(2, n_neighbors=5, random_state=0).fit(X)
    _without(monkeypatch, "matplotlib", "matplotlib.collections")
    with pytest.raises(ImportError, match=r'plot_embedding needs matplotlib: '
                       r"pip install 'smiclust\[plot\]'"):
        plot_embedding(model)


def test_write_figures_names_the_plot_extra(monkeypatch, tmp_path):
    from smiclust.experiments import write_figures

    _without(monkeypatch, "matplotlib")
    with pytest.raises(ImportError, match=r'write_figures needs matplotlib'):
        write_figures(None, tmp_path / "figures")
    assert not (tmp_path / "figures").exists()


@pytest.mark.parametrize("extra_args", [[], ["--report-only"]])
def test_reproduce_without_pandas_is_refused_before_the_runs(
        monkeypatch, tmp_path, capsys, extra_args):
    _without(monkeypatch, "pandas")
    out = tmp_path / "out"
    assert main(["reproduce", "--quick", "--out", str(out), *extra_args]) == 2
    err = capsys.readouterr().err
    assert "the report needs pandas: pip install 'smiclust[io]'" in err
    assert "--no-report" in err
    assert not out.exists()


def test_report_writers_without_pandas_write_nothing(monkeypatch, tmp_path):
    from smiclust import experiments

    _without(monkeypatch, "pandas")
    records = tmp_path / "records.csv"
    records.write_text("run_id\n")
    for writer in (experiments.write_report, experiments.write_noise_report,
                   experiments.write_beyond_report):
        with pytest.raises(ImportError, match=r"needs pandas"):
            writer(records, tmp_path / "report")
    assert not (tmp_path / "report").exists()


def test_demo_refuses_a_named_plot_without_matplotlib(monkeypatch, tmp_path, capsys):
    _without(monkeypatch, "matplotlib", "matplotlib.figure")
    monkeypatch.chdir(tmp_path)
    assert main(["demo", "--plot", "mine.png", "--fractions", "0"]) == 2
    captured = capsys.readouterr()
    assert "--plot needs matplotlib: pip install 'smiclust[plot]'" in captured.err
    assert captured.out == "" and list(tmp_path.iterdir()) == []


def test_predict_from_parquet_without_pyarrow_is_bad_input(
        monkeypatch, tmp_path, capsys):
    X, _ = make_moons(40, noise=0.05, random_state=0)
    data = tmp_path / "moons.csv"
    np.savetxt(data, X, delimiter=",", header="a,b", comments="")
    model = tmp_path / "model.joblib"
    assert main(["fit", str(data), "-k", "2", "--n-neighbors", "5", "--save",
                 str(model), "--out", str(tmp_path / "labels.csv")]) == 0
    (tmp_path / "new.parquet").write_bytes(b"PAR1junk")
    _without(monkeypatch, "pyarrow")
    capsys.readouterr()
    before = _files(tmp_path)
    assert main(["predict", str(model), str(tmp_path / "new.parquet")]) == 2
    err = capsys.readouterr().err
    assert "Parquet files need pyarrow: pip install 'smiclust[io]'" in err
    assert "unexpected" not in err
    assert _files(tmp_path) == before


@pytest.fixture
def corrupted_sonar(monkeypatch):
    """The shipped sonar file as if modified: its recorded digest changed."""
    _loaders._read.cache_clear()
    monkeypatch.setitem(_loaders._SHA256, _loaders._SONAR_FILE, "0" * 64)
    yield
    _loaders._read.cache_clear()


def test_a_corrupted_data_file_is_refused_by_its_checksum(corrupted_sonar,
                                                           tmp_path, capsys):
    with pytest.raises(DataChecksumError, match="Checksum mismatch") as excinfo:
        _loaders.load_sonar()
    assert isinstance(excinfo.value, OSError)  # as load_sonar documents
    out = tmp_path / "sonar.csv"
    assert main(["datasets", "sonar", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "Checksum mismatch for data file 'sonar.all-data'" in err
    assert "reinstall smiclust" in err and "unexpected" not in err
    assert not out.exists()
    # reproduce reads its data before it writes anything
    target = tmp_path / "runs"
    assert main(["reproduce", "--quick", "--datasets", "sonar", "--out",
                 str(target), "--no-report"]) == 2
    assert "Checksum mismatch" in capsys.readouterr().err
    assert not target.exists()
