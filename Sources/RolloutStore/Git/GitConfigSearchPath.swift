import CGit2
import Foundation

/// Where libgit2 looks for the user's own git config (~/.gitconfig, $XDG_CONFIG_HOME/git/config):
/// the user name an actor falls back to, `safe.directory`, settings a repository's config reading
/// includes. libgit2 reads HOME and XDG_CONFIG_HOME from the process once, when it starts; a caller
/// that runs commands inside its own process with another environment (the end-to-end tests, a
/// server) points it at that environment's before each command.
package enum GitConfigSearchPath {
    /// Whether the search path was pointed away from libgit2's own choice.
    private static let moved = LockedFlag()

    /// Makes `environment`'s HOME and XDG_CONFIG_HOME the ones libgit2 reads. Where they are the
    /// process's own, libgit2's own choice stands (what a `rollout` process always had). The search
    /// path is one per process: commands with different homes run one after the other, not at once.
    package static func use(_ environment: [String: String]) {
        let inherited = ProcessInfo.processInfo.environment
        guard environment["HOME"] != inherited["HOME"] || environment["XDG_CONFIG_HOME"] != inherited["XDG_CONFIG_HOME"]
        else {
            // A `rollout` process always gets here first: it starts libgit2 only when a command
            // needs it (`rollout --version` never does), and has nothing to put back.
            guard moved.value else { return }
            _ = rollout_git_set_search_path(GIT_CONFIG_LEVEL_GLOBAL, nil)
            _ = rollout_git_set_search_path(GIT_CONFIG_LEVEL_XDG, nil)
            moved.value = false
            return
        }
        Git.initialized
        moved.value = true
        // libgit2's own rule: global is $HOME; XDG is $XDG_CONFIG_HOME/git, else $HOME/.config/git.
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        let xdg =
            environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 + "/git" }
            ?? home.map { $0 + "/.config/git" }
        _ = rollout_git_set_search_path(GIT_CONFIG_LEVEL_GLOBAL, home ?? "")
        _ = rollout_git_set_search_path(GIT_CONFIG_LEVEL_XDG, xdg ?? "")
    }
}

/// A Bool read and written under a lock. `@unchecked Sendable`: `lock` guards `stored`. (Not
/// Synchronization's Atomic: that needs macOS 15, and Package.swift says macOS 12.)
private final class LockedFlag: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = false

    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
