//! The desktop shell's integration tests: its IPC surface, its data folder, and how the app
//! starts without a display.

mod data_folder;
mod ipc_surface;
mod no_display;
