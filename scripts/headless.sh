# Sourced by e2e.sh and bench/desktop.sh: builds the app (scripts/build-app.sh: debug, or release
# with VERITY_RELEASE=1) with the front end embedded, starts Xvfb and tauri-driver on a free display
# and free ports, with a fresh temporary XDG_DATA_HOME so the app starts on a new demo project.
# Stops what it started on exit.
# Sets: app, work, driver_pid, port, XDG_DATA_HOME, DISPLAY.

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$root/scripts/build-app.sh"
if [ "${VERITY_RELEASE:-0}" = 1 ]; then
  app="$root/target/release/verity-desktop"
else
  app="$root/target/debug/verity-desktop"
fi

work="$(mktemp -d)"
export XDG_DATA_HOME="$work/data"
mkdir -p "$XDG_DATA_HOME"
# A display without a lock file, and a port nothing listens on.
display_num=$(( 90 + RANDOM % 400 ))
while [ -e "/tmp/.X$display_num-lock" ]; do display_num=$(( display_num + 1 )); done
port=$(( 4400 + RANDOM % 400 ))
while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do port=$(( port + 1 )); done
native_port=$(( port + 1000 ))
while (exec 3<>"/dev/tcp/127.0.0.1/$native_port") 2>/dev/null; do native_port=$(( native_port + 1 )); done
xvfb_pid=""
driver_pid=""
stop_headless() {
  if [ -n "$driver_pid" ]; then kill "$driver_pid" 2>/dev/null || true; fi
  if [ -n "$xvfb_pid" ]; then kill "$xvfb_pid" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap stop_headless EXIT

Xvfb ":$display_num" -screen 0 1280x800x24 -nolisten tcp >"$work/xvfb.log" 2>&1 &
xvfb_pid=$!
export DISPLAY=":$display_num"
for _ in $(seq 50); do
  [ -e "/tmp/.X11-unix/X$display_num" ] && break
  sleep 0.1
done

tauri-driver --port "$port" --native-port "$native_port" >"$work/driver.log" 2>&1 &
driver_pid=$!
for _ in $(seq 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  sleep 0.1
done
