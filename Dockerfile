# evalbot as a Docker container action. The runner mounts the workspace and sets the working
# directory itself, so there is no WORKDIR and no USER here (GitHub's docs for Docker actions).
#
# The base is pinned by digest (python:3.11-slim-bookworm; requirements.lock is resolved for its
# Python, 3.11). BASE_IMAGE stays a build argument so that a stand-in can be used where no
# registry is reachable (tests/container/container-action, .ci/container-test).
ARG BASE_IMAGE=python:3.11-slim-bookworm@sha256:a36c24f9cbdf4fd0f52d67f0823eeac19c2028c637cecc392d97f980d4fec56b

# Build evalbot's wheel apart: its build backend (setuptools) never reaches the final image.
FROM ${BASE_IMAGE} AS build
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
COPY requirements-build.lock /tmp/build/
RUN pip install --no-cache-dir --require-hashes --only-binary=:all: \
      -r /tmp/build/requirements-build.lock
COPY pyproject.toml README.md /tmp/build/src/
COPY evalbot /tmp/build/src/evalbot
RUN pip wheel --no-cache-dir --no-deps --no-build-isolation --wheel-dir /tmp/build/wheels \
      /tmp/build/src

# Install and trim on the pinned base; the final image is this stage's file system copied into
# one layer, so what is deleted here is gone from the image (deleted in a layer on top of the
# base, a file is only hidden and the image does not shrink).
FROM ${BASE_IMAGE} AS install
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
COPY requirements.lock /tmp/evalbot/requirements.lock
# --no-deps: exactly the lock, which leaves out cryptography and pycparser (see its header)
RUN pip install --no-cache-dir --no-compile --require-hashes --only-binary=:all: --no-deps \
      -r /tmp/evalbot/requirements.lock
COPY --from=build /tmp/build/wheels /tmp/wheels
RUN pip install --no-cache-dir --no-compile --no-deps --no-index /tmp/wheels/evalbot-*.whl \
 && rm -rf /tmp/wheels /tmp/evalbot
# Trim what a run never loads:
# * test suites, type stubs (*.pyi), and pip, setuptools and wheel (nothing installs at run
#   time), the standard library's test suite, IDLE, tkinter, ensurepip and lib2to3;
# * apt's caches and lists, documentation (the copyright files stay), man pages, translations.
RUN site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
 && stdlib="$(python -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')" \
 && find "$site" -depth -type d -name tests -exec rm -rf {} + \
 && find "$site" -name '*.pyi' -delete \
 && python -c "import importlib.util as u, pathlib, shutil, sys; \
[shutil.rmtree(p) for name in ('pip', 'setuptools', 'wheel', 'pkg_resources', '_distutils_hack') \
 for s in [u.find_spec(name)] if s and s.origin for d in [pathlib.Path(s.origin).parent] \
 for p in [d, *d.parent.glob(name + '-*.dist-info'), *d.parent.glob(name + '-*.egg-info')] \
 if p.is_dir()]; \
[p.unlink() for d in sys.path if d for p in pathlib.Path(d).glob('distutils-precedence.pth')]" \
 && rm -rf /usr/local/bin/pip* /usr/bin/pip* /usr/share/python-wheels \
      "$stdlib/test" "$stdlib/idlelib" "$stdlib/tkinter" "$stdlib/turtledemo" \
      "$stdlib/ensurepip" "$stdlib/lib2to3" \
      /var/lib/apt/lists/* /var/cache/apt/* /var/cache/debconf/*-old /usr/share/man/* \
      /usr/share/info/* /usr/share/locale/* \
 && find /usr/share/doc -type f ! -name copyright -delete \
 && find /usr/share/doc -depth -type d -empty -delete
# Byte-compile everything but numpy and scipy, and of those two what a run imports (the
# action, a comparison, every report), and keep the compiled bundled templates (written by
# the reports' first rendering, hence PYTHONDONTWRITEBYTECODE unset there): a cold start
# compiles nothing, and the modules of numpy and scipy that evalbot never imports cost no
# .pyc in the image. Then a smoke check: the CLI.
RUN site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
 && python -m compileall -q -j 0 -x '/(numpy|scipy)/' "$site" \
 && PYTHONDONTWRITEBYTECODE='' python -c "import io, py_compile, sys, sysconfig; \
import evalbot.action, evalbot.github; from evalbot.cli import main; \
[main(['compare', '--example', '--format', f], io.StringIO()) for f in ('json', 'text', 'markdown')]; \
site = sysconfig.get_paths()['purelib']; \
[py_compile.compile(m.__file__) for m in list(sys.modules.values()) \
 if (getattr(m, '__file__', None) or '').startswith(site) and m.__file__.endswith('.py')]" \
 && evalbot --version

# The whole file system on purpose (hadolint's DL3067): the trimmed stage as one layer.
FROM scratch
# hadolint ignore=DL3067
COPY --from=install / /
# The base's settings a run needs (a copied file system does not carry its image's ENV).
ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
    LANG=C.UTF-8 \
    PYTHONUNBUFFERED=1
ENTRYPOINT ["evalbot", "action"]
