"""README.md's Python examples are whole programs that work as written (issue 14): each
```python block is followed by a ```text block holding exactly what it prints; every
block runs as its own program file (the client package on PYTHONPATH, in a scratch folder
holding the ONNX model the README says how to make) against a real server (no GPU,
so the device list is the README's), with the README's address replaced by the
server's, and its stdout must equal the text block."""

import os
import re
import subprocess
import sys

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
README = os.path.join(REPO, "README.md")
ADDRESS = "127.0.0.1:50051"


def examples():
    """[(python source, expected stdout, line number)] from README.md."""
    with open(README, encoding="utf-8") as f:
        text = f.read()
    blocks = [(m.group(1), m.group(2), text.count("\n", 0, m.start()) + 1)
              for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]
    pairs = []
    for i, (lang, body, line) in enumerate(blocks):
        if lang != "python":
            continue
        assert i + 1 < len(blocks) and blocks[i + 1][0] == "text", (
            "README.md line %d: a ```python block must be followed by a ```text block with its output" % line)
        pairs.append((body, blocks[i + 1][1], line))
    return pairs


def test_readme_has_examples():
    assert len(examples()) >= 7


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    """A folder with resnet18.onnx and mlp.onnx, made as the README says, and the model
    repository of "Serve a model repository" (models/mlp/1/model.onnx)."""
    pytest.importorskip("torchvision", reason="python3-torchvision exports the README's ResNet-18")
    d = tmp_path_factory.mktemp("readme")
    subprocess.run([sys.executable, os.path.join(REPO, "bench", "models", "export_models.py"), "--only",
                    "resnet18,mlp", "--out", str(d)], check=True, capture_output=True, timeout=300)
    os.makedirs(d / "models" / "mlp" / "1")
    os.link(d / "mlp.onnx", d / "models" / "mlp" / "1" / "model.onnx")
    return d


@pytest.mark.parametrize("source,expected,line", examples(), ids=["line%d" % e[2] for e in examples()])
def test_readme_example_prints_what_the_readme_shows(start_server, workdir, source, expected, line):
    server = start_server("--gpu", "off", "--model-repository", str(workdir / "models"))
    assert ADDRESS in source, "README.md line %d: the example does not name %s" % (line, ADDRESS)
    env = dict(os.environ, PYTHONPATH=os.path.join(REPO, "clients", "python"))
    env.pop("GRAPHD_DEVICE", None)  # the README's sessions are plain (CPU) sessions
    program = workdir / ("readme_line%d.py" % line)  # a file: client.function reads its source
    program.write_text(source.replace(ADDRESS, server.target))
    done = subprocess.run([sys.executable, str(program)], cwd=workdir, env=env, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, "README.md line %d failed:\n%s" % (line, done.stderr[-3000:])
    assert done.stdout.rstrip("\n") == expected.rstrip("\n"), (
        "README.md line %d prints:\n%s\nbut the README shows:\n%s" % (line, done.stdout, expected))
