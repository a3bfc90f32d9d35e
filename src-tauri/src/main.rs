//! The Verity desktop app's entry point.
// Without this a console window opens next to the app on Windows release builds.
#![cfg_attr(not(debug_assertions), windows_subsystem = "windows")]

use verity_desktop::command_line::{self, Invocation, USAGE};

fn main() -> std::process::ExitCode {
    let project = match command_line::parse(std::env::args_os().skip(1)) {
        Ok(Invocation::Start(project)) => project,
        Ok(Invocation::Help) => {
            println!("{USAGE}");
            return std::process::ExitCode::SUCCESS;
        }
        Err(err) => {
            eprintln!("verity-desktop: {err}");
            return std::process::ExitCode::from(2);
        }
    };
    #[cfg(target_os = "linux")]
    {
        if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none() {
            // GTK would panic deep in its start-up; say what to do instead.
            eprintln!(
                "verity-desktop: there is no display to open a window on (DISPLAY and WAYLAND_DISPLAY are unset); run it in a virtual one with `xvfb-run verity-desktop`, or use the `verity` command line"
            );
            return std::process::ExitCode::from(2);
        }
        paint_on_the_cpu();
    }
    verity_desktop::run(project);
    std::process::ExitCode::SUCCESS
}

/// WebKitGTK paints pages with Skia on the GPU by default. Verity's pages are text, tables and
/// small charts, which the CPU paints as fast; and on a machine without a GPU (a virtual
/// machine, a remote desktop, Xvfb) the "GPU" is Mesa's software renderer, whose textures and
/// caches cost memory: with 2,000 tasks open, the app and its WebKit processes took 396-408 MB
/// (PSS) painting on the GPU and 354-377 MB painting on the CPU (`bench/desktop.sh`). Verity
/// therefore paints on the CPU unless the environment already chooses
/// (`WEBKIT_SKIA_ENABLE_CPU_RENDERING=0` restores WebKit's default).
#[cfg(target_os = "linux")]
#[allow(unsafe_code)]
fn paint_on_the_cpu() {
    const VARIABLE: &str = "WEBKIT_SKIA_ENABLE_CPU_RENDERING";
    if std::env::var_os(VARIABLE).is_none() {
        // SAFETY: this runs first in `main`, before any thread exists that could read the
        // environment while it changes.
        unsafe { std::env::set_var(VARIABLE, "1") };
    }
}
