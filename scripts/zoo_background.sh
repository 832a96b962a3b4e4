# Sourced by the GPU scripts (gpu_spmm.sh, gpu_distributed.sh): zoo matrices generated one
# compound-zoo process per matrix, in the background, so that generation (47-284 s per xl
# matrix, one core each) overlaps the build or other steps. Uses the caller's $out for logs.
#
#   zoo_generate TOOL DIR NAME SCALE   starts `TOOL --out DIR/NAME --scale SCALE --only NAME`
#                                      once (DIR/NAME.rc: its exit code when done; the log
#                                      $out/zoo_NAME.log ends with the exit code and seconds)
#   zoo_wait DIR NAME                  0 once DIR/NAME is there, 1 (and the log's tail) if
#                                      its generation failed; it must have been started
#   zoo_failed DIR NAME...             the names (space-separated) whose generation has already
#                                      failed: a missing mesh fails in its first second, so a
#                                      caller can stop before a long build
#
# zoo_tool_args (an array, default empty): more arguments for every compound-zoo, e.g.
# (--meshes .carry/meshes) where the tree was copied without ../shared.

declare -A zoo_generating  # DIR/NAME of the matrices started here: each generated once
declare -a zoo_tool_args  # keeps the caller's, if set
zoo_generate() {
  local tool=$1 dir=$2 name=$3 scale=$4
  [ -e "$dir/$name.rc" ] || [ -n "${zoo_generating[$dir/$name]:-}" ] && return
  zoo_generating[$dir/$name]=1
  mkdir -p "$dir/$name"
  (
    start=$SECONDS
    "$tool" --out "$dir/$name" --scale "$scale" --only "$name" "${zoo_tool_args[@]}" > "$out/zoo_$name.log" 2>&1
    rc=$?
    echo "compound-zoo rc $rc after $((SECONDS - start)) s" >> "$out/zoo_$name.log"
    echo $rc > "$dir/$name.rc.tmp" && mv "$dir/$name.rc.tmp" "$dir/$name.rc"
  ) &
}
zoo_wait() {
  local dir=$1 name=$2
  while [ ! -e "$dir/$name.rc" ]; do sleep 2; done
  [ "$(cat "$dir/$name.rc")" = 0 ] || { echo "compound-zoo failed on $name:"; tail -5 "$out/zoo_$name.log"; return 1; }
}
zoo_failed() {
  local dir=$1 name failed=
  shift
  for name in "$@"; do
    [ -e "$dir/$name.rc" ] && [ "$(cat "$dir/$name.rc")" != 0 ] && failed+="$name "
  done
  echo "$failed"
}
