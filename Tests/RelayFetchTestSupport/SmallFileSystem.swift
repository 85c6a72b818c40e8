import Foundation

/// A tmpfs mounted on a fresh folder for one test, small enough to fill up for real (`size=64k`,
/// or `nr_inodes=3` for a folder that takes two files and refuses a third). Needs root, as the
/// tests run; a mount that fails throws rather than skipping the test. Unmounted by `unmount()`
/// (call it in teardown) or when released.
public final class SmallFileSystem {
    public let path: URL
    private var mounted = false

    /// Mounts a tmpfs with `options` (mount(8) -o) on a new folder under the temporary directory.
    public init(options: String) throws {
        path = FileManager.default.temporaryDirectory.appendingPathComponent("small-fs-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: path, withIntermediateDirectories: true)
        let run = try TestServers.run(["/usr/bin/mount", "-t", "tmpfs", "-o", options, "tmpfs", path.path])
        guard run.status == 0 else {
            try? FileManager.default.removeItem(at: path)
            throw TestServerError(description: "mount -t tmpfs -o \(options) failed (these tests need root): \(run.output)")
        }
        mounted = true
    }

    deinit { unmount() }

    /// Changes the size or inode count in place, keeping what the file system holds ("size=4m").
    public func remount(options: String) throws {
        let run = try TestServers.run(["/usr/bin/mount", "-o", "remount," + options, path.path])
        guard run.status == 0 else { throw TestServerError(description: "remount \(options) of \(path.path) failed: \(run.output)") }
    }

    /// Unmounts it and removes the folder (idempotent).
    public func unmount() {
        guard mounted else { return }
        mounted = false
        _ = try? TestServers.run(["/usr/bin/umount", "-l", path.path])
        try? FileManager.default.removeItem(at: path)
    }
}
