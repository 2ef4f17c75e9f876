# Sourced by the install tests: check_no_build_paths FILE... fails (through the caller's `fail`)
# when an installed file names a path of the build machine: any entry of the caller's
# `forbidden` array (build tree, source tree, set-up folder), or a source file relative to a
# build tree (`../src/...`). Libraries and programs are read as their strings after
# `objcopy --strip-debug` (debug info may name sources; the code may not); other files as text.
check_no_build_paths() {
  local f text bad
  for f in "$@"; do
    case "$f" in
      *.a|*.so*|*/bin/*) objcopy --strip-debug "$f" "$tmp/stripped"; text=$(strings -a "$tmp/stripped") ;;
      *) text=$(cat "$f") ;;
    esac
    for bad in "${forbidden[@]}"; do
      if grep -qF "$bad" <<<"$text"; then fail "$f names $bad: $(grep -F "$bad" <<<"$text" | head -3)"; fi
    done
    if grep -qE '(^|[^[:alnum:]_])\.\./(src|include|tools|kernels)/' <<<"$text"; then
      fail "$f names a source file relative to its build tree: $(grep -E '\.\./(src|include|tools|kernels)/' <<<"$text" | head -3)"
    fi
  done
}
