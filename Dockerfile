# evalbot as a Docker container action. The runner mounts the workspace and sets the working
# directory itself, so there is no WORKDIR and no USER here (GitHub's docs for Docker actions).
ARG BASE_IMAGE=python:3.12-slim
FROM ${BASE_IMAGE}

ENV PYTHONUNBUFFERED=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_ROOT_USER_ACTION=ignore

# Pinned dependencies first: this layer is cached until requirements.lock changes.
COPY requirements.lock /tmp/evalbot/requirements.lock
RUN pip install --no-cache-dir -r /tmp/evalbot/requirements.lock

COPY pyproject.toml README.md /tmp/evalbot/
COPY evalbot /tmp/evalbot/evalbot
# --no-deps: nothing but the pinned set above; then byte-compile everything once, so a cold
# start does not compile numpy/scipy/PyGithub on every run.
RUN pip install --no-cache-dir --no-deps /tmp/evalbot \
 && rm -rf /tmp/evalbot \
 && python -c "import compileall, sysconfig; paths = {sysconfig.get_paths()[k] for k in ('purelib', 'platlib')}; [compileall.compile_dir(p, quiet=1, workers=0) for p in paths]" \
 && evalbot --version

ENTRYPOINT ["evalbot", "action"]
