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

FROM ${BASE_IMAGE}
ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore
# Pinned, hash-checked dependencies first: this layer is cached until requirements.lock
# changes. The test suites inside numpy and scipy (about 50 MB) are not shipped.
COPY requirements.lock /tmp/evalbot/requirements.lock
RUN pip install --no-cache-dir --no-compile --require-hashes --only-binary=:all: \
      -r /tmp/evalbot/requirements.lock \
 && rm -rf /tmp/evalbot \
 && site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
 && find "$site/numpy" "$site/scipy" -depth -type d -name tests -exec rm -rf {} +
COPY --from=build /tmp/build/wheels /tmp/wheels
# Byte-compile everything but numpy and scipy, and of those two what a run imports (the
# action, a comparison, every report): a cold start compiles nothing, and the many modules of
# scipy that evalbot never imports cost no .pyc in the image.
RUN pip install --no-cache-dir --no-compile --no-deps --no-index /tmp/wheels/evalbot-*.whl \
 && rm -rf /tmp/wheels \
 && site="$(python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')" \
 && python -m compileall -q -j 0 -x '/(numpy|scipy)/' "$site" \
 && python -c "import io, py_compile, sys, sysconfig; \
import evalbot.action, evalbot.github_io; from evalbot.cli import main; \
[main(['compare', '--example', '--format', f], io.StringIO()) for f in ('json', 'text', 'markdown')]; \
site = sysconfig.get_paths()['purelib']; \
[py_compile.compile(m.__file__) for m in list(sys.modules.values()) \
 if (getattr(m, '__file__', None) or '').startswith(site) and m.__file__.endswith('.py')]" \
 && evalbot --version

ENTRYPOINT ["evalbot", "action"]
