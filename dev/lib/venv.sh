# shellcheck shell=bash
# Sourced by dev/seed and dev/kcat: the Python environment of the dev tools (dev/seed-requirements.txt),
# made on first use under ${KLENS_DEV_CACHE:-~/.cache/klens-dev}. Progress goes to stderr.

# klens_dev_venv: prints the environment's directory, creating it when missing.
klens_dev_venv() {
  local root cache req venv python
  root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  cache="${KLENS_DEV_CACHE:-$HOME/.cache/klens-dev}"
  req="$root/dev/seed-requirements.txt"
  venv="$cache/seed-venv-$(sha256sum "$req" | cut -c1-12)"
  python="${KLENS_SEED_PYTHON:-python3}"
  if [[ ! -f $venv/.complete ]]; then
    command -v "$python" >/dev/null || { echo "dev: error: $python not found" >&2; return 1; }
    echo "==> creating the dev tools' Python environment in $venv" >&2
    rm -rf "$venv"
    mkdir -p "$cache"
    "$python" -m venv "$venv" >&2 ||
      { echo "dev: error: '$python -m venv' failed (Debian: apt-get install python3-venv)" >&2; return 1; }
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$req" >&2 ||
      { echo "dev: error: pip could not install $req" >&2; return 1; }
    touch "$venv/.complete"
  fi
  printf '%s\n' "$venv"
}
