"""Third-party code copied into tinylib so that it has no runtime dependencies."""
