import Foundation
import RolloutCrypto
import RolloutModel
import RolloutStore

/// `rollout keys ...`: the root and publishing keys and the signed key list (docs/keys.md). Each
/// command reads its files, calls one `KeyOperations` function and writes the new private keys
/// only after the new list has passed the device's check, removing them again if the commit fails.
enum KeysCommands {
    /// What the key commands' exit codes mean for them (printed in their help after the table's meaning).
    static let exitNotes: [ExitCode: String] = [
        .usage: "also a key file that already exists, or a key id prefix several keys start with",
        .badInput:
            "here a --root file that is not a root of the repository's key list, too few roots for its threshold, an unknown key id, a list devices would refuse, or (keys init) a repository that already has a key list",
        .missing: "or a repository without a key list (run rollout keys init)",
        .tryAgain: "or the repository is locked or busy",
    ]

    /// `--dry-run` of every key command that changes the key list.
    static let dryRunHelp = "check the change and print the key list version it would commit; write no key, no commit"

    /// Said in the help of every key command that writes.
    static let nothingWritten =
        "\nNothing is written unless the command succeeds: no key file and no commit. --dry-run makes every check and prints what the command would commit, and writes neither."

    // MARK: keys generate

    static let generate = CommandSpec(
        path: ["keys", "generate"],
        summary: "make one Ed25519 signing key (PEM, mode 0600) and print the public key an app pins",
        discussion: """
            For a site signed with one key (no key list): keep the private key out of the repository,
            whoever holds it can sign what devices accept. The public key is printed as ed25519:BASE64
            (the 32 raw bytes); give it to the app and to rollout verify-site --public-key. An existing
            file is never overwritten. A repository with a key list makes its keys with rollout keys
            init and rollout keys rotate instead (docs/keys.md).
            """,
        options: GenerateOptions.self, arguments: .none,
        effects: .writesFiles,
        run: { invocation, context in
            guard let out = try invocation.value(GenerateOptions.declared.out)?.text else {
                throw RolloutError.usage("rollout keys generate needs --out FILE")
            }
            let key = try Ed25519.PrivateKey.generate()
            let written = try writeNewKeys([NewKey(name: out, path: context.absolutePath(out), key: key)])
            let publicKey = key.publicKey.description
            return CommandOutput(
                json: ["privateKeyFile": .string(written[0]), "publicKey": .string(publicKey)],
                text:
                    "Wrote the private key to \(out) (mode 0600; keep it secret).\nPublic key (embed it in the app): \(publicKey)\n"
            )
        })

    // MARK: options

    struct GenerateOptions: OptionGroup {
        let out = Option<Path>("out", "FILE", "where to write the private key").required()

        static let declared = GenerateOptions()
    }

    struct InitOptions: OptionGroup {
        let out = Option<Path>(
            "out", "DIR", "the directory for the new private keys (kept out of the repository)"
        ).required()
        let roots = Option.count(
            "roots", "N", "how many root keys to make (default 1, at most 16); two let an app survive losing one",
            minimum: 1, maximum: KeyList.maximumRoots)
        let threshold = Option.count(
            "threshold", "T", "how many root keys must sign each key list (default 1)", minimum: 1,
            maximum: KeyList.maximumRoots)
        let expires = Option.duration("expires", "DURATION", "how long the publishing key is valid (default 365d)")
        let adopt = Option<Path>(
            "adopt", "FILE", "use this existing private key as the first publishing key instead of making one")
        let dryRun = Flag("dry-run", dryRunHelp)

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = InitOptions()
    }

    /// `--root FILE...`: the current root keys that sign a key change (rotate, revoke, rotate-root).
    struct RootKeyFiles: OptionGroup {
        let root = Option<Path>(
            "root", "FILE", "a root private key of the current key list (give as many as its threshold)",
            repeatable: true
        ).required()
    }

    struct RotateOptions: OptionGroup {
        let roots = RootKeyFiles()
        let out = Option<Path>(
            "out", "FILE", "where to write the new publishing key (default: publish-N.key beside the first --root)")
        let expires = Option.duration(
            "expires", "DURATION", "how long the new publishing key is valid (default 365d)")
        let overlap = Option.duration(
            "overlap", "DURATION", "how long the old publishing keys stay valid (default 0: retired now)", zero: true)
        let dryRun = Flag("dry-run", dryRunHelp)

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = RotateOptions()
    }

    struct RevokeOptions: OptionGroup {
        let roots = RootKeyFiles()
        let reason = Option.reason(
            "why, recorded in the key list and the commit (for example \"laptop lost\")", keyList: true
        ).required()
        let dryRun = Flag("dry-run", dryRunHelp)

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = RevokeOptions()
    }

    struct RotateRootOptions: OptionGroup {
        let roots = RootKeyFiles()
        let out = Option<Path>(
            "out", "FILE", "where to write a new root private key (one per new root)", repeatable: true
        ).required()
        /// A key id of the current list (`KeyChange`): completion offers them.
        let keep = Option<String>(
            "keep", "KEYID", "a current root key that stays a root", repeatable: true, completion: .keyIDs
        ) { text, _ in text }
        let threshold = Option.count(
            "threshold", "T", "how many of the new roots must sign each key list (default: the current threshold)",
            minimum: 1, maximum: KeyList.maximumRoots)
        let dryRun = Flag("dry-run", dryRunHelp)

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = RotateRootOptions()
    }

    // MARK: keys init

    static let initialize = CommandSpec(
        path: ["keys", "init"],
        summary: "make the root key(s) and a first publishing key, and commit key list version 1",
        discussion: """
            Writes DIR/root.key (with --roots N above 1: DIR/root-1.key ... DIR/root-N.key) and
            DIR/publish-1.key, each mode 0600, never overwriting a file; DIR is created if needed.
            Commits keys/1.json and keys/1.json.sigs to the repository: the root public keys, how many
            of them must sign a key list (--threshold, default 1), and the publishing key, valid for
            --expires (default 365d). Prints the root public keys to build into the app
            (RolloutClient.Trust rootKeys) and every key id.
            Keep the root keys offline (a password manager, a hardware token, a safe): they are needed
            only to change the key list. The publishing key goes where rollout publish runs.
            --adopt FILE makes an existing private key (the one a live app pins, from rollout keys
            generate) the first publishing key, so one site serves old and new app versions; no
            publish-1.key is written then. Refused if the repository already has a key list.
            DURATION is a whole number and a unit: 30m, 12h, 7d, 2w.

            """ + nothingWritten,
        options: InitOptions.self,
        arguments: .none,
        effects: [.readsFiles, .writesFiles, .recordsChange], exitNotes: exitNotes,
        run: { invocation, context in
            let options = InitOptions.declared
            guard let out = try invocation.value(options.out)?.text else {
                throw RolloutError.usage("rollout keys init needs --out DIR (where the private keys go)")
            }
            let count = try invocation.value(options.roots) ?? 1
            let threshold = try invocation.value(options.threshold) ?? 1
            guard threshold <= count else {
                throw RolloutError.usage(
                    "--threshold \(threshold) needs at least \(threshold) root keys; --roots is \(count)")
            }
            let lifetime = try invocation.value(options.expires) ?? KeyOperations.defaultPublishingLifetime
            let adopted = try invocation.value(options.adopt).map {
                try PublishCommands.loadKey($0.text, context: context)
            }
            let repository = try context.repository(invocation)
            repository.dryRun = invocation.flag(options.dryRun)
            let now = try context.now()
            let directory = context.absolutePath(out)
            var roots: [NewKey] = []
            for index in 1...count {
                let name = count == 1 ? "root.key" : "root-\(index).key"
                roots.append(
                    NewKey(name: join(out, name), path: join(directory, name), key: try Ed25519.PrivateKey.generate()))
            }
            let publishing = try adopted ?? Ed25519.PrivateKey.generate()
            let newFiles =
                roots
                + (adopted == nil
                    ? [
                        NewKey(
                            name: join(out, "publish-1.key"), path: join(directory, "publish-1.key"), key: publishing)
                    ] : [])
            let change = KeyChange.initialize(
                roots: roots.map(\.key.publicKey), threshold: threshold, publishing: publishing.publicKey,
                expires: try KeyOperations.expiry(after: now, lifetime: lifetime))
            let applied = try commit(
                change, repository: repository, roots: [], newRoots: roots.map(\.file), newFiles: newFiles,
                directory: directory,
                invocation: invocation, context: context, now: now)
            let publishingName = invocation.text(options.adopt) ?? join(out, "publish-1.key")
            let output = initialized(
                applied, roots: roots, publishing: publishing.publicKey,
                publishingFile: (publishingName, context.absolutePath(publishingName)), threshold: threshold)
            return finished(output, applied, actor: try context.actor(invocation, repository: repository))
        })

    /// What keys init prints: the roots to build into the app and the publishing key to sign with.
    private static func initialized(
        _ applied: PackRepository.Applied<KeyOperations.Prepared>, roots: [NewKey],
        publishing: Ed25519.PublicKey, publishingFile: (name: String, path: String), threshold: Int
    ) -> CommandOutput {
        let list = applied.result.list
        var text = committed(list, applied) + ".\n"
        text += "Root keys (build these into the app; \(threshold) of \(roots.count) must sign each key list):\n"
        for root in roots {
            text += "  \(root.key.publicKey.description)  id \(root.key.publicKey.keyID)  \(root.name)\n"
        }
        text +=
            "Publishing key: id \(publishing.keyID)  \(publishingFile.name)  expires \(list.publishing[publishing.keyID]!.expires)\n"
        text += minimumKeysVersionLine(list)
        text +=
            "Keep the root keys offline; rollout publish --key \(publishingFile.name) signs sites with the publishing key.\n"
        return CommandOutput(
            json: [
                "version": .integer(list.version), "commit": applied.commit.map { .string($0.hex) } ?? .null,
                "minimumKeysVersion": .integer(list.version),
                "threshold": .integer(threshold),
                "roots": .array(
                    roots.map {
                        [
                            "id": .string($0.key.publicKey.keyID),
                            "publicKey": .string($0.key.publicKey.description), "file": .string($0.path),
                        ]
                    }),
                "publishing": publishingJSON(publishing, file: publishingFile.path, list: list),
            ],
            text: text)
    }

    // MARK: keys rotate

    static let rotate = CommandSpec(
        path: ["keys", "rotate"],
        summary: "make a new publishing key and retire the old ones, signed by the root key(s); no app update needed",
        discussion: """
            Makes a new publishing key at --out (default: publish-N.key beside the first --root
            file, N the new key list version), mode 0600, never overwriting a file, and commits key
            list version N: the new key, valid for --expires (default 365d), and every other
            publishing key's expiry brought forward to now + --overlap (default 0: retired now). A
            retired key stays listed, so what it signed stays valid on devices; it signs nothing new.
            Give --overlap while sites signed with the old key are still being served (CDN caches).
            The list is signed by the --root files given: each must be a root key of the current
            list, at least as many as its threshold. Publish with the new key next: rollout publish
            --key FILE. Rotate on a schedule, and at once when a publishing key may have leaked
            (then also rollout keys revoke it).
            DURATION is a whole number and a unit: 30m, 12h, 7d, 2w.

            """ + nothingWritten,
        options: RotateOptions.self,
        arguments: .none,
        effects: [.readsFiles, .writesFiles, .recordsChange], exitNotes: exitNotes,
        run: { invocation, context in
            let options = RotateOptions.declared
            let roots = try rootFiles(invocation, options.roots, context: context, command: "rotate")
            let lifetime = try invocation.value(options.expires) ?? KeyOperations.defaultPublishingLifetime
            let overlap = try invocation.value(options.overlap) ?? 0
            let repository = try context.repository(invocation)
            repository.dryRun = invocation.flag(options.dryRun)
            let now = try context.now()
            let current = try requireKeyList(repository)
            let version = current.version + 1
            let out =
                invocation.text(options.out)
                ?? join(
                    (invocation.texts(options.roots.root)[0] as NSString).deletingLastPathComponent,
                    "publish-\(version).key")
            let key = try Ed25519.PrivateKey.generate()
            let newFile = NewKey(name: out, path: context.absolutePath(out), key: key)
            let change = KeyChange.rotate(
                adding: key.publicKey, expires: try KeyOperations.expiry(after: now, lifetime: lifetime),
                retireBy: Timestamp(seconds: now.seconds + overlap))
            let applied = try commit(
                change, repository: repository, roots: roots, newRoots: [], newFiles: [newFile], directory: nil,
                invocation: invocation,
                context: context, now: now)
            let list = applied.result.list
            // Oldest first, as keys list shows them: the ids are random, so their order would be too.
            let retired = list.publishing.filter { $0.key != key.publicKey.keyID }
                .sorted { ($0.value.created.seconds, $0.key) < ($1.value.created.seconds, $1.key) }.map(\.key)
            var text = committed(list, applied) + ".\n"
            text +=
                "New publishing key: id \(key.publicKey.keyID)  \(out)  expires \(list.publishing[key.publicKey.keyID]!.expires)\n"
            for id in retired { text += "Old publishing key \(id) valid until \(list.publishing[id]!.expires)\n" }
            text += minimumKeysVersionLine(list)
            text += "Publish with it next: rollout publish --key \(out)\n"
            let output = CommandOutput(
                json: [
                    "version": .integer(list.version), "commit": applied.commit.map { .string($0.hex) } ?? .null,
                    "minimumKeysVersion": .integer(list.version),
                    "publishing": publishingJSON(key.publicKey, file: newFile.path, list: list),
                    "retired": .array(
                        retired.map {
                            ["id": .string($0), "expires": .string(list.publishing[$0]!.expires.description)]
                        }),
                ],
                text: text)
            return finished(output, applied, actor: try context.actor(invocation, repository: repository))
        })

    // MARK: keys revoke

    static let revoke = CommandSpec(
        path: ["keys", "revoke"],
        summary: "revoke a publishing key for good: devices that see the new key list refuse what it signs",
        discussion: """
            Moves the publishing key KEYID (the 16 hex digits rollout keys list shows, or a unique
            start of at least 8) to the list's revoked keys with --reason and the time, and commits
            the new key list version signed by the --root files (each a root key of the current
            list, as many as its threshold). No later list may drop a revocation. Devices drop
            cached packs the key vouched for once they accept the new list, so publish again at
            once with another publishing key (rollout keys rotate first if there is none).
            A root key is not revoked but replaced: rollout keys rotate-root.

            """ + nothingWritten,
        options: RevokeOptions.self,
        arguments: .exactly("KEYID"),
        effects: [.readsFiles, .recordsChange], exitNotes: exitNotes,
        run: { invocation, context in
            let options = RevokeOptions.declared
            let roots = try rootFiles(invocation, options.roots, context: context, command: "revoke")
            guard let reason = invocation.value(options.reason) else {
                throw RolloutError.usage(
                    "rollout keys revoke needs --reason TEXT (for example --reason \"laptop lost\")")
            }
            // Its length is bounded before the command runs (`Option.reason(keyList:)`): every device
            // downloads the key list on every refresh, revocations included, for good.
            let repository = try context.repository(invocation)
            repository.dryRun = invocation.flag(options.dryRun)
            let now = try context.now()
            let applied = try commit(
                .revoke(key: invocation.positionals[0], reason: reason), repository: repository, roots: roots,
                newRoots: [], newFiles: [],
                directory: nil, invocation: invocation, context: context, now: now)
            let list = applied.result.list
            // The change resolved KEYID and revoked it: the same ids, so the same key.
            let id = try KeyChange.resolve(invocation.positionals[0], in: list)
            let revocation = list.revoked[id]!
            let active = list.publishing.filter { $0.value.expires > now }.keys.sorted()
            var text = committed(list, applied) + ": \(id) revoked (\(revocation.reason)).\n"
            text += minimumKeysVersionLine(list)
            text +=
                active.isEmpty
                ? "No publishing key is left: make one with rollout keys rotate --root FILE, then publish with it.\n"
                : "Publish again now, with \(active.joined(separator: " or ")), so devices take the new key list.\n"
            let output = CommandOutput(
                json: [
                    "version": .integer(list.version), "commit": applied.commit.map { .string($0.hex) } ?? .null,
                    "minimumKeysVersion": .integer(list.version), "revoked": .string(id),
                    "reason": .string(revocation.reason), "time": .string(revocation.time.description),
                ],
                text: text)
            return finished(output, applied, actor: try context.actor(invocation, repository: repository))
        })

    // MARK: keys rotate-root

    static let rotateRoot = CommandSpec(
        path: ["keys", "rotate-root"],
        summary:
            "replace the root keys: new root key(s), signed by the old roots and the new ones; apps need no update",
        discussion: """
            Makes a new root key at each --out (mode 0600, never overwriting a file) and commits a
            key list version whose roots are the new keys plus each --keep KEYID (a current root,
            its id or a unique start of at least 8 hex digits), with --threshold T (default: the
            current threshold, at most the number of new roots). The list is signed by the --root
            files (current roots, as many as the current threshold) and by the new roots (as many as
            the new threshold: the new keys, and kept roots whose file is among --root). Its version
            is added to rootChanges, so the site keeps it at keys/<n>.json and a device that trusts
            only the old roots walks to the new ones. Build the new root public keys (printed) into
            the next app version; apps with the old ones keep working. Move the new root keys
            offline, and destroy a replaced root key that may have leaked.

            """ + nothingWritten,
        options: RotateRootOptions.self,
        arguments: .none,
        effects: [.readsFiles, .writesFiles, .recordsChange], exitNotes: exitNotes,
        run: { invocation, context in
            let options = RotateRootOptions.declared
            let roots = try rootFiles(invocation, options.roots, context: context, command: "rotate-root")
            let outs = invocation.texts(options.out)
            guard !outs.isEmpty else {
                throw RolloutError.usage("rollout keys rotate-root needs --out FILE, once per new root key")
            }
            let threshold = try invocation.value(options.threshold)
            let repository = try context.repository(invocation)
            repository.dryRun = invocation.flag(options.dryRun)
            let now = try context.now()
            var newRoots: [NewKey] = []
            for out in outs {
                let path = context.absolutePath(out)
                guard !newRoots.contains(where: { $0.path == path }) else {
                    throw RolloutError.usage("--out \(out) is given twice")
                }
                newRoots.append(NewKey(name: out, path: path, key: try Ed25519.PrivateKey.generate()))
            }
            let change = KeyChange.rotateRoot(
                newRoots: newRoots.map(\.key.publicKey), keep: invocation.texts(options.keep), threshold: threshold)
            let applied = try commit(
                change, repository: repository, roots: roots, newRoots: newRoots.map(\.file), newFiles: newRoots,
                directory: nil,
                invocation: invocation, context: context, now: now)
            let list = applied.result.list
            var text =
                committed(list, applied)
                + ": \(list.roots.threshold) of \(list.roots.keys.count) root keys sign from now on.\n"
            text += minimumKeysVersionLine(list)
            text += "Root keys (build these into the next app version):\n"
            let newIDs = newRoots.map(\.key.publicKey.keyID)
            let kept = keptFirst(list.roots.ids.filter { !newIDs.contains($0) }, keep: invocation.texts(options.keep))
            for id in kept + newIDs where list.roots.keys[id] != nil {
                let file = newRoots.first { $0.key.publicKey.keyID == id }.map { "  \($0.name)" } ?? "  (kept)"
                text += "  \(list.roots.keys[id]!.description)  id \(id)\(file)\n"
            }
            let output = CommandOutput(
                json: [
                    "version": .integer(list.version), "commit": applied.commit.map { .string($0.hex) } ?? .null,
                    "minimumKeysVersion": .integer(list.version),
                    "threshold": .integer(list.roots.threshold),
                    "roots": .array(
                        list.roots.ids.map { id in
                            var root: [String: JSONValue] = [
                                "id": .string(id), "publicKey": .string(list.roots.keys[id]!.description),
                            ]
                            if let new = newRoots.first(where: { $0.key.publicKey.keyID == id }) {
                                root["file"] = .string(new.path)
                            }
                            return .object(root)
                        }),
                    "rootChanges": .array(list.rootChanges.map { .integer($0) }),
                ],
                text: text)
            return finished(output, applied, actor: try context.actor(invocation, repository: repository))
        })

    /// Kept roots in the order of --keep (each id by the first prefix it starts with): the ids are random,
    /// so an order by id would change from one ceremony to the next. New roots follow in the order of --out.
    private static func keptFirst(_ ids: [String], keep: [String]) -> [String] {
        func rank(_ id: String) -> (Int, String) { (keep.firstIndex { id.hasPrefix($0) } ?? keep.count, id) }
        return ids.sorted { rank($0) < rank($1) }
    }

    // MARK: keys list

    static let list = CommandSpec(
        path: ["keys", "list"], summary: "show the repository's key list: each key's id, role, dates and status",
        discussion: """
            Prints the newest key list version, its root threshold, then one row per key: ID, ROLE
            (root, publishing, revoked), CREATED, EXPIRES, STATUS (active; expires in N days, within
            14 days; retired (expired); revoked: REASON). Times are UTC; now is ROLLOUT_NOW when
            set. Exit 66 when the repository has no key list (run rollout keys init).
            """,
        options: NoOptions.self,
        arguments: .none,
        effects: .readsRepository,
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let now = try context.now()
            let list = try requireKeyList(repository)
            let rows = KeyListing.rows(of: list, now: now)
            var table = Table("ID", "ROLE", "CREATED", "EXPIRES", "STATUS")
            for row in rows {
                table.add(
                    row.id, row.role.rawValue, row.created?.description ?? "-", row.expires?.description ?? "-",
                    row.status)
            }
            let text =
                "Key list version \(list.version) (\(list.time)); \(list.roots.threshold) of \(list.roots.keys.count) root key(s) sign each list.\n"
                + minimumKeysVersionLine(list) + table.render(context.style(invocation))
            return CommandOutput(
                json: [
                    "version": .integer(list.version), "time": .string(list.time.description),
                    "threshold": .integer(list.roots.threshold),
                    "minimumKeysVersion": .integer(list.version),
                    "rootChanges": .array(list.rootChanges.map { .integer($0) }),
                    "keys": .array(
                        rows.map { row in
                            var object: [String: JSONValue] = [
                                "id": .string(row.id), "role": .string(row.role.rawValue),
                                "status": .string(row.status),
                            ]
                            if let key = row.publicKey { object["publicKey"] = .string(key.description) }
                            if let created = row.created { object["created"] = .string(created.description) }
                            if let expires = row.expires { object["expires"] = .string(expires.description) }
                            if let revocation = row.revocation {
                                object["revoked"] = .string(revocation.time.description)
                                object["reason"] = .string(revocation.reason)
                            }
                            return .object(object)
                        }),
                ],
                text: text)
        })

    // MARK: Shared steps

    /// A private key this command makes: the name it is shown by, where it goes, the key.
    struct NewKey {
        let name: String
        let path: String
        let key: Ed25519.PrivateKey

        var file: KeyFile { KeyFile(name: name, key: key) }
    }

    static func keyFileExists(_ name: String) -> RolloutError {
        .usage("\(name) already exists; rollout never overwrites a key. Choose another file or remove it first")
    }

    /// `keyFileExists`, saying so when the file is what a keys command stopped before its commit
    /// left (a key the repository's key list does not name, or not a whole key): nothing trusts it,
    /// so removing it is safe, and the same command then runs again.
    static func keyFileExists(_ file: NewKey, list: KeyList?, context: CommandContext) -> RolloutError {
        let held = try? PublishCommands.loadKey(file.path, context: context)
        if let held, list?.role(of: held.publicKey.keyID) != nil { return keyFileExists(file.name) }
        let what = held == nil ? "is not a whole private key" : "holds a key that no key list of this repository names"
        return .usage(
            """
            \(file.name) already exists and \(what): what a keys command stopped before its commit (killed, or a \
            failed commit) leaves. Nothing trusts it; rollout never overwrites a key, so remove it (rm \(file.name)) \
            and run the command again, or give --out another file
            """)
    }

    /// Removes the temporary files a key write stopped half way left beside `path`
    /// (`.NAME.tmp-PID-N`, LocalFile's names): each one whose process is gone. A live process's
    /// is its own.
    static func removeStaleTemporaries(beside path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let prefix = ".\((path as NSString).lastPathComponent).tmp-"
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = name.dropFirst(prefix.count).split(separator: "-").first.flatMap({ Int32($0) }),
                pid != getpid(), kill(pid, 0) != 0, errno == ESRCH
            else { continue }
            unlink((directory.isEmpty ? "" : directory + "/") + name)
        }
    }

    /// Creates `directory` and any missing folder above it mode 0700 whatever the umask: it holds
    /// private keys. A folder that exists keeps its mode.
    static func makePrivateDirectory(_ directory: String) throws {
        try LocalFile.makeDirectories(directory, mode: 0o700, purpose: "create the directory")
    }

    /// Creates each key file (mode 0600, never replacing one); all or none: a file already there
    /// removes the ones this call wrote. Returns their absolute paths.
    static func writeNewKeys(_ keys: [NewKey]) throws -> [String] {
        var written: [String] = []
        do {
            for key in keys {
                guard !FileManager.default.fileExists(atPath: key.path) else { throw keyFileExists(key.name) }
                // Written beside the target and linked into place: never readable by others, never
                // replacing a file that appeared since the check, never left half written.
                guard try LocalFile.create(key.path, with: Array(key.key.pem.utf8), name: key.name, mode: 0o600) else {
                    throw keyFileExists(key.name)
                }
                written.append(key.path)
            }
        } catch {
            removeKeys(written)
            throw error
        }
        return written
    }

    static func removeKeys(_ paths: [String]) {
        for path in paths { unlink(path) }
    }

    /// Checks the new list on the current tip (nothing written), then writes the new key files,
    /// then commits (re-checked on the tip it lands on); a failed commit removes the key files.
    static func commit(
        _ change: KeyChange, repository: PackRepository, roots: [KeyFile], newRoots: [KeyFile], newFiles: [NewKey],
        directory: String?,
        invocation: Invocation, context: CommandContext, now: Timestamp
    ) throws -> PackRepository.Applied<KeyOperations.Prepared> {
        let actor = try context.actor(invocation, repository: repository)
        let snapshot = try repository.snapshot()
        _ = try KeyOperations.prepare(change, on: snapshot, roots: roots, newRoots: newRoots, now: now)
        for file in newFiles {
            removeStaleTemporaries(beside: file.path)
            if FileManager.default.fileExists(atPath: file.path) {
                throw keyFileExists(file, list: try snapshot.currentKeyList()?.list, context: context)
            }
        }
        if repository.dryRun {
            return try KeyOperations.commit(
                change, in: repository, roots: roots, newRoots: newRoots, actor: actor, now: now)
        }
        if let directory { try makePrivateDirectory(directory) }
        let written = try writeNewKeys(newFiles)
        do {
            return try KeyOperations.commit(
                change, in: repository, roots: roots, newRoots: newRoots, actor: actor, now: now)
        } catch let proposed as ProposalMade {
            // Proposed (--propose): the new private keys are the ones the proposal lists, kept for
            // when it is approved.
            throw proposed
        } catch {
            removeKeys(written)
            throw error
        }
    }

    /// The `--root` files, read; at least one is required.
    static func rootFiles(_ invocation: Invocation, _ options: RootKeyFiles, context: CommandContext, command: String)
        throws -> [KeyFile]
    {
        let names = invocation.texts(options.root)
        guard !names.isEmpty else {
            throw .missingRoot(command)
        }
        return try names.map { KeyFile(name: $0, key: try PublishCommands.loadKey($0, context: context)) }
    }

    static func requireKeyList(_ repository: PackRepository) throws -> KeyList {
        guard let current = try repository.snapshot().currentKeyList() else { throw KeyRefusal.noKeyList }
        return current.list
    }

    /// What a new app version builds in (`RolloutClient.Trust.minimumKeysVersion`, verify-site
    /// --min-keys-version): the newest list, so a fresh install refuses one from before it.
    /// The first words of every key change's report: the version committed, and its commit.
    /// In a dry run: that it would commit that version.
    static func committed(_ list: KeyList, _ applied: PackRepository.Applied<KeyOperations.Prepared>) -> String {
        if applied.dryRun { return "Dry run: would commit key list version \(list.version)" }
        return "Committed key list version \(list.version)\(applied.commit.map { " (commit \($0.short))" } ?? "")"
    }

    /// `output`, ending in a dry run with the commit the change would record and that nothing was
    /// written (`dryRun` and `wouldRecord` in its JSON).
    static func finished(
        _ output: CommandOutput, _ applied: PackRepository.Applied<KeyOperations.Prepared>, actor: Actor
    ) -> CommandOutput {
        guard applied.dryRun, case .object(var object) = output.json else { return output }
        object["dryRun"] = true
        object["wouldRecord"] = DryRun.json(applied.change, actor: actor)
        return CommandOutput(
            json: .object(object), text: output.text + DryRun.text(applied.change, actor: actor) + DryRun.nothingWritten
        )
    }

    static func minimumKeysVersionLine(_ list: KeyList) -> String {
        "Build into new app versions: minimum keys version \(list.version)\n"
    }

    static func join(_ directory: String, _ name: String) -> String {
        directory.isEmpty ? name : (directory.hasSuffix("/") ? directory + name : directory + "/" + name)
    }

    static func publishingJSON(_ key: Ed25519.PublicKey, file: String, list: KeyList) -> JSONValue {
        let entry = list.publishing[key.keyID]
        return [
            "id": .string(key.keyID), "publicKey": .string(key.description), "file": .string(file),
            "created": entry.map { .string($0.created.description) } ?? .null,
            "expires": entry.map { .string($0.expires.description) } ?? .null,
        ]
    }
}

/// The refusals of the keys commands' flags, named (an extension of Error, so that `throw .name(...)` finds them).
extension Error where Self == RolloutError {
    fileprivate static func missingRoot(_ command: String) -> RolloutError {
        .usage(
            "rollout keys \(command) needs --root FILE, a root private key of the key list (once per root key its threshold needs)"
        )
    }
}
