import RolloutModel
import RolloutStore

/// `rollout signers add`, `remove` and `list`: who may sign which changes, kept in `signers/`
/// (docs/audit.md, "Who made each change: verified signers"). The changes are `SignerOperations`.
enum SignersCommands {
    struct AddOptions: OptionGroup {
        let key = Option<Path>("key", "PUBFILE", "the signer's SSH public key (id_ed25519.pub), for gpg.format=ssh")
            .oneOf("key")
        let openPGP = Option<Path>(
            "openpgp", "ASCFILE", "the signer's armored OpenPGP public key (gpg --armor --export EMAIL)"
        ).oneOf("key")
        let role = Option<String>("role", "ROLES", "admin, release, approver or bot; several with commas").required()
        let reason = Option.reason("why (recorded in the commit)")
        let dryRun = Flag("dry-run", "print what would change and write nothing")

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = AddOptions()
    }

    struct RemoveOptions: OptionGroup {
        let reason = Option.reason("why (recorded in the commit)")
        let dryRun = Flag("dry-run", "print what would change and write nothing")

        let proposal = ApprovalCommands.ProposeOptions()

        static let declared = RemoveOptions()
    }

    static let add = CommandSpec(
        path: ["signers", "add"],
        summary: "allow PRINCIPAL (an email) to sign changes with a key, in the roles given",
        discussion: """
            The key goes in signers/allowed_signers (SSH, git's allowed-signers format) or \
            signers/openpgp/PRINCIPAL.asc (OpenPGP), the roles in signers/roles.json. A principal added \
            again keeps its keys, gets the new one, and the roles given in place of its old ones. The first \
            signer must be an admin, since only an admin may change the signers. Roles: admin (the \
            signers, policy and keys, and all that release may), release (ordinary changes), approver \
            (approves another's proposal), bot (reverts, holds and ramp steps only: rollout guard's key).
            """,
        options: AddOptions.self, arguments: .exactly("PRINCIPAL"),
        effects: [.readsFiles, .recordsChange, .checks],
        run: { invocation, context in
            let options = AddOptions.declared
            let principal = invocation.positionals[0]
            guard let roleText = invocation.value(options.role) else {
                throw RolloutError.usage("rollout signers add needs --role ROLES (admin, release, approver or bot)")
            }
            let roles = try SignerRole.parseList(roleText)
            let keyFile = try invocation.value(options.key)
            let openPGPFile = try invocation.value(options.openPGP)
            guard (keyFile == nil) != (openPGPFile == nil) else {
                throw RolloutError.usage("rollout signers add needs --key PUBFILE or --openpgp ASCFILE")
            }
            // After the required options (a usage error names the missing one first), before the key is
            // read: the key's allowed-signers line is parsed with the principal in it.
            try SignerOperations.checkPrincipal(principal)
            var sshKey: AllowedSigner? = nil
            if let keyFile {
                let text = String(
                    decoding: try context.readFile(keyFile.text, describedAs: "public key"), as: UTF8.self)
                sshKey = try AllowedSigner.line(principal: principal, publicKey: text, file: keyFile.text)
            }
            var openPGPKey: [UInt8]? = nil
            if let openPGPFile {
                openPGPKey = try context.readFile(openPGPFile.text, describedAs: "OpenPGP key")
                guard String(decoding: openPGPKey!, as: UTF8.self).contains("-----BEGIN PGP PUBLIC KEY BLOCK-----")
                else {
                    throw SignerRefusal.badOpenPGPKey(file: openPGPFile.text, "it is not an armored public key")
                }
            }
            let repository = try context.repository(invocation)
            let now = try context.now()
            let dryRun = invocation.flag(options.dryRun)
            repository.dryRun = dryRun
            let actor = try context.actor(invocation, repository: repository)
            let applied = try SignerOperations.add(
                principal, sshKey: sshKey, openPGPKey: openPGPKey, roles: roles, in: repository,
                reason: invocation.value(options.reason), actor: actor, time: { now })
            return render(applied, adding: true, dryRun: dryRun, actor: actor, style: context.style(invocation))
        })

    static let remove = CommandSpec(
        path: ["signers", "remove"],
        summary: "take PRINCIPAL's keys and roles out of the signers",
        discussion: """
            Removes its lines of signers/allowed_signers, its OpenPGP key and its roles. The changes it \
            signed before stay verified: each change is checked against the signers in force when it was \
            made. Removing the last admin is refused.
            """,
        options: RemoveOptions.self, arguments: .exactly("PRINCIPAL"),
        effects: [.recordsChange, .checks],
        run: { invocation, context in
            let options = RemoveOptions.declared
            let repository = try context.repository(invocation)
            let now = try context.now()
            let dryRun = invocation.flag(options.dryRun)
            repository.dryRun = dryRun
            let actor = try context.actor(invocation, repository: repository)
            let applied = try SignerOperations.remove(
                invocation.positionals[0], in: repository, reason: invocation.value(options.reason), actor: actor,
                time: { now })
            return render(applied, adding: false, dryRun: dryRun, actor: actor, style: context.style(invocation))
        })

    static func render(
        _ applied: PackRepository.Applied<SignerChange>, adding: Bool, dryRun: Bool, actor: Actor, style: Style
    ) -> CommandOutput {
        let change = applied.result
        let roles = change.roles.map(\.rawValue).joined(separator: ",")
        var text =
            (dryRun
                ? "Dry run: would have " + (adding ? "added" : "removed") : style.green(adding ? "added" : "removed"))
            + " signer \(change.principal)" + (adding ? " as \(roles)" : "")
            + (applied.commit.map { " (commit \($0.short))" } ?? "") + ".\n"
        if dryRun { text += DryRun.text(applied.change, actor: actor) + DryRun.nothingWritten }
        var json: [String: JSONValue] = [
            "principal": .string(change.principal), "roles": .array(change.roles.map { .string($0.rawValue) }),
            "dryRun": .bool(dryRun), "commit": applied.commit.map { .string($0.hex) } ?? .null,
            "signers": .integer(change.signers.principals.count),
        ]
        if dryRun { json["wouldRecord"] = DryRun.json(applied.change, actor: actor) }
        return CommandOutput(json: .object(json), text: text)
    }

    static let list = CommandSpec(
        path: ["signers", "list"],
        summary: "the principals allowed to sign changes, their roles and key fingerprints",
        discussion: """
            SSH keys show as ssh-keygen -lf prints them (SHA256:...), OpenPGP keys by their fingerprint.
            """,
        options: NoOptions.self, arguments: .none,
        effects: [.readsRepository, .checksSignatures],
        run: { invocation, context in
            let repository = try context.repository(invocation)
            let signers = try repository.snapshot().signers()
            let auditor = repository.signatureAuditor()
            defer { auditor.close() }
            var table = Table("PRINCIPAL", "ROLES", "KEYS")
            var items: [JSONValue] = []
            for principal in signers.principals {
                let roles = signers.roster.roles(of: principal).map(\.rawValue)
                var keys = signers.sshKeys(of: principal).map { "\($0.keyType) \($0.fingerprint)" }
                if let armored = signers.openPGP[principal] {
                    keys += try auditor.openPGPFingerprints(armored).map { "openpgp \($0)" }
                }
                table.add(
                    principal, roles.isEmpty ? "-" : roles.joined(separator: ","),
                    keys.isEmpty ? "-" : keys.joined(separator: ", "))
                items.append([
                    "principal": .string(principal), "roles": .array(roles.map { .string($0) }),
                    "keys": .array(keys.map { .string($0) }),
                ])
            }
            let text =
                items.isEmpty
                ? "No signers: any change is accepted unsigned. Add the first admin with rollout signers add EMAIL --key PUBFILE --role admin.\n"
                : table.render(context.style(invocation))
            return CommandOutput(json: ["signers": .array(items)], text: text)
        })
}
