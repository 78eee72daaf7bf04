import RolloutImport
import RolloutIngest
import RolloutModel
import RolloutReport
import RolloutStore

/// Every refusal of the library targets, worded: the one place a `Refusal` becomes the sentence a
/// person reads, with its next step in the command line's own words (flags, commands). A refusal
/// type with no wording here is a bug the tests catch (`RefusalWordingTests`).
enum Refusals {
    /// `error` as the `RolloutError` a person reads: a refusal worded here, a `RolloutError` as it is,
    /// anything else nil.
    static func worded(_ error: any Error) -> RolloutError? {
        if let error = error as? RolloutError { return error }
        if let error = error as? OptionError { return error.error }
        guard let refusal = error as? any Refusal else { return nil }
        return RolloutError(refusal.kind, message(refusal))
    }

    /// What a person reads for `error`, whatever it is: for lists of per-item failures (guard's
    /// locales) that go on after one.
    static func message(of error: any Error) -> String { worded(error)?.message ?? "\(error)" }

    static func message(_ refusal: any Refusal) -> String {
        switch refusal {
        case let refusal as PromoteRefusal: return promote(refusal)
        case let refusal as RevertRefusal: return revert(refusal)
        case let refusal as GateRefusal: return gate(refusal)
        case let refusal as KeyRefusal: return keys(refusal)
        case let refusal as StoreRefusal: return store(refusal)
        case let refusal as RemoteRefusal: return remote(refusal)
        case let refusal as IngestRefusal: return ingest(refusal)
        case let refusal as ImportRefusal: return importing(refusal)
        case let refusal as ReportRefusal: return report(refusal)
        case let refusal as ScheduleRefusal: return schedule(refusal)
        case let refusal as TesterRefusal: return testers(refusal)
        case let refusal as ExperimentRefusal: return experiment(refusal)
        case let refusal as SignerRefusal: return signers(refusal)
        case let refusal as SigningRefusal: return signing(refusal)
        case let refusal as AdmissionRefusal: return admission(refusal)
        case let refusal as ProposalRefusal: return proposal(refusal)
        default: return "refused: \(refusal)"
        }
    }

    // MARK: admission (the two-person rule)

    static func admission(_ refusal: AdmissionRefusal) -> String {
        switch refusal {
        case .needsApproval(let action, let rule):
            return
                "this \(action) needs a second signer: the policy's signing.approval asks an approver for \(SignatureWords.rule(rule)). Nothing was changed; propose it with --propose, and an approver applies it with rollout approve ID"
        case .refused(let action, let problems):
            for case .selfApproval(let principal) in problems {
                return
                    "\(principal) proposed this \(action) and cannot approve their own change: another signer with the approver role runs rollout approve ID. Nothing was changed"
            }
            return
                "this \(action) cannot be admitted: it \(problems.map(SignatureWords.problem).joined(separator: "; it ")). Nothing was changed"
        }
    }

    static func proposal(_ refusal: ProposalRefusal) -> String {
        switch refusal {
        case .unsigned:
            return
                "a proposal must be signed, and git config does not sign this change: run it with --sign, or set git config commit.gpgSign true (docs/audit.md). Nothing was changed"
        case .nothingToPropose: return "the change would change nothing: there is nothing to propose"
        case .noSuchProposal(let id, let open):
            return
                "no open proposal \(InputLimits.echo(id))\(open.isEmpty ? "; there is none" : " (open: \(open.joined(separator: ", ")))"); rollout proposals lists them"
        case .stale(let id, let paths):
            return
                "proposal \(id) is stale: main changed \(paths.joined(separator: ", ")) since it was proposed. Nothing was changed; propose the change again on the current state with --propose"
        case .badProposal(let id, let problems):
            return
                "proposal \(id) cannot be approved: it \(problems.map(SignatureWords.problem).joined(separator: "; it ")). Nothing was changed"
        }
    }

    // MARK: signers

    static func signers(_ refusal: SignerRefusal) -> String {
        switch refusal {
        case .badAllowedSigner(let file, let line, let why):
            let reason: String
            switch why {
            case .noKey: reason = "it has no key: write PRINCIPAL [OPTIONS] KEYTYPE BASE64 [COMMENT]"
            case .unclosedQuote: reason = "a quote is left open"
            case .certificateAuthority:
                reason = "cert-authority keys are not supported: list each signer's own key"
            case .unknownOption(let option):
                reason = "unknown option \"\(InputLimits.echo(option))\" (known: namespaces, valid-after, valid-before)"
            case .unknownKeyType(let type):
                reason = "\"\(InputLimits.echo(type))\" is not an SSH key type (such as ssh-ed25519)"
            case .badKey(let type): reason = "the key is not a base64 \(type) public key"
            }
            return "\(file):\(line): not an allowed signer: \(reason)"
        case .badRoles(let file, let why):
            return "\(file): \(InputLimits.echo(why))"
        case .unknownRole(let name):
            return "--role \"\(InputLimits.echo(name))\" is not a role: admin, release, approver or bot"
        case .firstWithoutAdmin(let principal):
            return
                "the first signer must be an admin, or nobody could change the signers: rollout signers add \(principal) --role admin,..."
        case .lastAdmin(let principal):
            return
                "\(principal) is the last admin: nobody could change the signers after this; add another admin first (rollout signers add EMAIL --role admin)"
        case .noSuchSigner(let principal, let signers):
            return "\(InputLimits.echo(principal)) is not a signer"
                + (signers.isEmpty ? "" : " (signers: \(signers.joined(separator: ", ")))")
        case .badOpenPGPKey(let file, let why):
            return "\(file): \(why); export it with gpg --armor --export EMAIL"
        case .badPrincipal(let principal):
            return
                // Quoted as Swift writes a string: a newline or a control character in it shows escaped, on one line.
                "\(InputLimits.echo(principal).debugDescription) is not a principal: a signer is named by the email of its commits (ana@example.com)"
        }
    }

    // MARK: signing

    /// A change that could not be signed: what git config said, what went wrong, and the fix.
    static func signing(_ refusal: SigningRefusal) -> String {
        let unchanged = ". Nothing was changed; to make this change unsigned, run it again with --no-sign"
        switch refusal {
        case .unsupportedFormat(let format):
            return
                "git config gpg.format is \(format), which rollout does not sign with: use ssh or openpgp (git config gpg.format ssh)"
                + unchanged
        case .noSSHKey:
            return
                "git config asks for signed commits with gpg.format=ssh, but user.signingKey is not set: name your key with git config user.signingKey ~/.ssh/id_ed25519.pub (or key::ssh-ed25519 AAAA... for a key held in ssh-agent)"
                + unchanged
        case .noDefaultKey(let command, let said):
            let lines = said.isEmpty ? "" : " (it said: \(said.joined(separator: "; ")))"
            return
                "git config asks for signed commits with gpg.format=ssh and no user.signingKey, and gpg.ssh.defaultKeyCommand (\(command)) gave no ssh public key\(lines): add a key to ssh-agent with ssh-add, or name one with git config user.signingKey ~/.ssh/id_ed25519.pub"
                + unchanged
        case .programMissing(let setup, let why):
            let key = setup.programKey ?? (setup.format == .ssh ? "gpg.ssh.program" : "gpg.program")
            return "cannot sign the change with \(signer(setup)): \(why); install it, or point git config \(key) at it"
                + unchanged
        case .keyFileMissing(let setup, let path):
            let file = path == setup.key ? "that key file does not exist" : "there is no key file \(path)"
            return
                "cannot sign the change with \(signer(setup)): \(file); set git config user.signingKey to your key's file (~/.ssh/id_ed25519.pub)"
                + unchanged
        case .noAgent(let setup):
            return
                "cannot sign the change with \(signer(setup)): the key is to be in ssh-agent, and no agent answers (SSH_AUTH_SOCK); start one with eval $(ssh-agent) and add the key with ssh-add"
                + unchanged
        case .keyNotInAgent(let setup):
            return
                "cannot sign the change with \(signer(setup)): ssh-agent does not hold that key; add it with ssh-add PRIVATE-KEY-FILE"
                + unchanged
        case .needsPassphrase(let setup):
            return
                "cannot sign the change with \(signer(setup)): the key needs its passphrase, and rollout never waits for one; load it into the agent first (ssh-add for an ssh key, or gpg-agent's cache for gpg)"
                + unchanged
        case .noSecretKey(let setup):
            let fix =
                setup.keyIsCommitter
                ? "set git config user.signingKey KEYID to a key gpg --list-secret-keys shows"
                : "import the key into gpg, or set git config user.signingKey to a key gpg --list-secret-keys shows"
            return "cannot sign the change with \(signer(setup)): gpg holds no secret key for it; \(fix)" + unchanged
        case .failed(let setup, let status, let said):
            let lines =
                said.isEmpty ? " It said nothing" : " It said:\n" + said.map { "  \($0)" }.joined(separator: "\n")
            return "cannot sign the change with \(signer(setup)): it failed with status \(status).\(lines)\n"
                + unchanged.dropFirst(2)
        case .timedOut(let setup, let seconds):
            return
                "cannot sign the change with \(signer(setup)): it did not finish within \(seconds) s (a prompt nobody can answer, such as a passphrase or a hardware key's touch) and was stopped"
                + unchanged
        }
    }

    /// The signer as git config set it: `ssh-keygen (gpg.format=ssh, user.signingKey ~/.ssh/id.pub)`.
    private static func signer(_ setup: SignerSetup) -> String {
        let program = setup.program + (setup.programKey.map { " (git config \($0))" } ?? "")
        let key =
            setup.keyIsCommitter
            ? "the committer's key \(setup.key), as user.signingKey is not set"
            : setup.defaultKeyCommand.map { "the key gpg.ssh.defaultKeyCommand (\($0)) printed, \(setup.key)" }
                ?? "user.signingKey \(setup.key)"
        return "\(program), gpg.format=\(setup.format.rawValue), \(key)"
    }

    // MARK: testers

    // MARK: experiments

    // Long: one sentence per case, a flat table that reads better whole.
    static func experiment(_ refusal: ExperimentRefusal) -> String {
        switch refusal {
        case .badName(let name):
            return
                "experiment name \"\(InputLimits.echo(name))\" is not a name: 1 to 40 lowercase letters, digits and -, starting with a letter, such as checkout-copy"
        case .variants(let ids):
            return
                "--variants needs two or more different packs of one locale, control first, such as tr-TR@18,tr-TR@19; got \(ids.map(\.description).joined(separator: ","))"
        case .mixedLocales(let locale, let other):
            return
                "--variants mixes locales: \(other) is not a \(locale) pack; an experiment compares packs of one locale"
        case .badMetric(let metric):
            return
                "metric \"\(InputLimits.echo(metric))\" is not a metric name: 1 to 40 lowercase letters, digits and _, starting with a letter, such as checkout"
        case .metricTwice(let primary, let exploratory):
            return
                "--exploratory \(exploratory.joined(separator: ",")) names a metric twice or names the primary metric \(primary); each metric is declared once"
        case .days(let days):
            return "--days \(days) is not from 1 to \(ExperimentRequest.maximumDays)"
        case .splitCount(let given, let variants):
            return "--split gives \(given) shares for \(variants) variants; give one share per variant, such as 50/50"
        case .splitTotal(let shares):
            return
                "--split \(shares.map(\.description).joined(separator: "/")) must give each variant more than 0% and add up to at most 100%"
        case .nameTaken(let name, let locale, let running):
            return
                "an experiment named \(name) \(running ? "is running" : "ran") on \(locale): names are never reused, so its record stays what it was; choose another name"
        case .otherRunning(let locale, let name):
            return
                "experiment \(name) is running on \(locale): one experiment at a time; stop it first with rollout experiment stop \(name)"
        case .candidateStaged(let locale, let candidate):
            return
                "\(candidate) is staged on \(locale): an experiment needs every device on the baseline first; complete or revert it (rollout revert \(locale))"
        case .underKillSwitch(let locale):
            return
                "the kill switch is on for \(locale): no device would see a variant; turn it off with a revert to a version first"
        case .blocked(let id):
            return "\(id) is blocked: a reverted version is never given to devices again"
        case .belowMinAppVersion(let id, let minAppVersion, let versions):
            return
                "--app-version \(versions) reaches below \(id)'s minAppVersion \(minAppVersion): those devices could not run it and would sit in the other variants only; target --app-version '>=\(minAppVersion)'"
        case .sameText(let ids):
            return
                "\(ids.map(\.description).joined(separator: " and ")) hold the same text: there is nothing to compare"
        case .noSuchExperiment(let name, let known):
            return
                "no experiment named \(name)"
                + (known.isEmpty
                    ? "; start one with rollout experiment start" : "; there are \(known.joined(separator: ", "))")
        case .notRunning(let name, let outcome):
            return "experiment \(name) has ended already (\(outcome)); rollout experiment show \(name) shows how"
        case .shipNotAVariant(let id, let variants):
            return
                "--ship \(id) is not one of the experiment's variants (\(variants.map(\.description).joined(separator: ", ")))"
        case .shipToNothing(let id, let name):
            return "--ship \(id) --to 0% ships it to no device; to end the experiment without shipping, "
                + "rollout experiment stop \(name)"
        case .shipBaselineAtAShare(let id, let share):
            return "--ship \(id) keeps the baseline, which every device outside the variants has already; "
                + "--to \(share) has no meaning for it: leave --to out"
        case .running(let locale, let name, let doing):
            return
                "experiment \(name) is running on \(locale): a \(doing) would change what its devices get in the middle of the question; stop it first with rollout experiment stop \(name) (--ship PACK to stage a variant)"
        }
    }

    static func testers(_ refusal: TesterRefusal) -> String {
        switch refusal {
        case .badGroupName(let name):
            return
                "tester group \"\(InputLimits.echo(name))\" is not a group name: 1 to 32 lowercase letters, digits and -, starting with a letter, such as qa"
        case .badID(let problem, let text, let file, let line):
            let place = file.map { "\($0):\(line ?? 0): " } ?? "--install-id "
            let why: String
            switch problem {
            case .empty: why = "is empty"
            case .space: why = "has a space in it (one install id a line)"
            case .control: why = "has a control character in it"
            case .tooLong(let bytes): why = "is \(bytes) bytes, over the limit of \(InputLimits.installIDBytes)"
            }
            return "\(place)\"\(InputLimits.echo(text))\" is not an install id: it \(why)"
                + (file == nil ? "" : "; nothing was changed")
        case .noIDsInFile(let file):
            return "\(file) holds no install id: write one a line"
        case .noSuchGroup(let name, let groups):
            return "no tester group \(name)"
                + (groups.isEmpty ? "" : " (groups: \(groups.joined(separator: ", ")))")
                + "; make it with rollout testers add \(name) --install-id ID"
        }
    }

    // MARK: schedule

    static func schedule(_ refusal: ScheduleRefusal) -> String {
        switch refusal {
        case .wouldChangeNothing(let id, let share):
            return
                "\(id) is already at \(share) there: a promote at that time would change nothing, so there is nothing to schedule"
        case .nothingPending(let locale):
            return "\(locale) has no scheduled change to cancel; rollout status \(locale) lists them"
        case .gateRefused(.refused(let pack, let refusal), let whenDue):
            return gateSaidNo(pack, refusal, force: false, accept: !whenDue)
        case .gateRefused(let refusal, _):
            return gate(refusal)
        case .noSuchPending(let locale, let id, let pending):
            return "\(locale) has no scheduled change \(id)"
                + (pending.isEmpty
                    ? "" : "; its pending changes are \(pending.map { "\($0)" }.joined(separator: ", "))")
                + " (rollout status \(locale) lists them)"
        }
    }

    // MARK: promote

    static func promote(_ refusal: PromoteRefusal) -> String {
        switch refusal {
        case .blocked(let id, let nextFree):
            return
                "\(id) is blocked: it was reverted and no device may get it again. Publish the fix as a new version (\(id.locale)@\(nextFree) or later)"
        case .olderThanBaseline(let id, let baseline):
            return
                "\(id) is older than the baseline \(id.locale)@\(baseline); to go back, use rollout revert \(id.locale) --to \(id.contentVersion)"
        case .alreadyBaseline(let id):
            return "\(id) is already the baseline: every device that can run it has it"
        case .loweringWithoutReason(let id):
            return "lowering the share of \(id) takes devices back off it; say why with --reason TEXT"
        case .otherCandidateStaged(let locale, let candidate, let staged):
            return
                "\(locale)@\(candidate) is still staged (\(staged)). Finish it first with rollout promote \(locale)@\(candidate) --to 100%, or take it back with rollout revert \(locale)"
        case .underKillSwitch(let id):
            return
                "the kill switch of \(id.locale) is on: every device uses its bundled strings, so a staged share would reach nobody. Turn it off by completing a pack: rollout promote \(id) --to 100%"
        case .ruleNeverApplies(let dead, let winner, let tooOld, let id, let minAppVersion):
            let minApp = "below \(id)'s minAppVersion \(minAppVersion)"
            var why =
                winner.map { "the rule for \($0.target) (\($0.share)) already decides those devices" }
                ?? "every device it would reach is \(minApp)"
            if winner != nil && tooOld { why += ", and the rest are \(minApp)" }
            return
                "a rule for \(dead.target) would never apply: \(why). Use targeting that does not overlap it, or change the share of the rule that decides"
        }
    }

    // MARK: the promote gate

    static func gate(_ refusal: GateRefusal) -> String {
        switch refusal {
        case .forceWithoutReason:
            return "--force overrides the health gate; say why with --reason TEXT"
        case .acceptanceNotJudged:
            return
                "--accept-insufficient applies to a promote that widens a rollout staged against a baseline; this one is not judged by health, so there is nothing to accept"
        case .strayAcceptance(let pattern, let targeted):
            return targeted.isEmpty
                ? "--accept-insufficient \(pattern) names no segment this promote widens: no metrics name one yet, so there is nothing to accept; widen with --force --reason TEXT, or ingest metrics first"
                : "--accept-insufficient \(pattern) names no segment this promote widens (it widens: \(targeted.joined(separator: ", ")))"
        case .refused(let pack, let refusal):
            return gateSaidNo(pack, refusal)
        }
    }

    /// The gate's no, with the way out: wait, ingest, accept a segment short of data, or force.
    /// A scheduled change takes no `--force` (`force: false`), nor, once guard applies it,
    /// `--accept-insufficient` (`accept: false`): the sentence offers only what can be taken.
    static func gateSaidNo(_ pack: PackID, _ refusal: PromoteGate.Refusal, force: Bool = true, accept: Bool = true)
        -> String
    {
        let forceHint = force ? "; override with --force --reason TEXT" : ""
        switch refusal {
        case .unhealthy(let check):
            let detail =
                check.map { check in
                    let counts =
                        "\(check.candidate.events)/\(check.candidate.total) against \(check.baseline.events)/\(check.baseline.total)"
                    return " (\(check.segment) \(check.kind.rawValue): \(counts))"
                } ?? ""
            return
                "\(pack) is unhealthy\(detail): a rollout widens only when healthy. See rollout health \(pack.locale)\(forceHint)"
        case .held(let checks):
            return "\(pack) is held: " + checks.map(HealthText.mismatch).joined(separator: "; ")
                + ". See rollout health \(pack.locale)\(forceHint)"
        case .unproven(let standings):
            return unprovenSegments(pack, standings, accept: accept)
        case .noMetrics:
            // No segment has data yet, so there is none to name or to accept with --accept-insufficient.
            return
                "\(pack) is insufficient-data: no metrics name a segment it would widen into yet, and a rollout widens only when healthy. Ingest metrics (rollout metrics ingest) and see rollout health \(pack.locale)\(forceHint)"
        }
    }

    /// Each segment short of data, with what it has and when it is expected to be judged.
    static func unprovenSegments(_ pack: PackID, _ standings: [Health.Standing], accept: Bool = true) -> String {
        let segments = standings.map { standing in
            guard let sessions = standing.exposures(.crash) ?? standing.exposures(.fallback) else {
                return "\(standing.segment) (no data for \(pack))"
            }
            let kind = standing.exposures(.crash) != nil ? "sessions" : "lookups"
            return
                "\(standing.segment) (\(sessions.candidate) \(kind) against \(sessions.baseline); judged: \(HealthText.decision(standing)))"
        }
        let flags = standings.map { standing in
            "--accept-insufficient " + (standing.segment.contains("*") ? "'\(standing.segment)'" : standing.segment)
        }.joined(separator: " ")
        return
            "\(pack) has too little data in \(standings.count == 1 ? "a segment" : "\(standings.count) segments") it would widen into: \(segments.joined(separator: ", ")). A rollout widens where every targeted segment is healthy: wait for data (rollout health \(pack.locale))"
            + (accept ? ", or accept them with \(flags)" : "")
    }

    // MARK: the store

    static func store(_ refusal: StoreRefusal) -> String {
        switch refusal {
        case .noRepositoryFound(let directory):
            return
                "no rollout repository in \(directory) or any parent; create one with rollout init, or name one with --repo DIR or ROLLOUT_REPO"
        case .notADirectory(let path):
            return "--out \(path) exists and is not a directory"
        case .noRamp(let locale, let doing):
            return "\(locale) has no scheduled ramp to \(doing); start one with promote --ramp"
        case .lintRefused(let errors):
            return "refused, nothing was stored (\(errors.count) problem\(errors.count == 1 ? "" : "s")):\n"
                + listing(errors)
        case .unknownRevision(let revision):
            return
                "unknown revision \(revision): not a commit id, tag or git revision (HEAD~3) of this repository, nor a time such as 2026-11-30T09:00:00Z; list the changes with rollout log"
        case .beforeHistory(let time):
            return "no state at \(time): the repository's first change is later; list the changes with rollout log"
        }
    }

    /// Lint's findings, a line each, as a refusal lists them.
    static func listing(_ findings: [LintFinding]) -> String {
        findings.map { finding in
            let key = finding.key.map { " \"\($0)\"" } ?? ""
            return "  \(finding.pack)\(key): \(finding.sentence) [\(finding.rule)]"
        }.joined(separator: "\n")
    }

    // MARK: the remote

    static func remote(_ refusal: RemoteRefusal) -> String {
        switch refusal {
        case .unreachable(let doing, let remote, let url, let attempts, let gitSaid):
            let said =
                gitSaid.isEmpty
                ? " git said nothing." : " git said:\n" + gitSaid.map { "  \($0)" }.joined(separator: "\n") + "\n"
            return
                "cannot \(doing) \(remote) (\(url)): the connection failed \(attempts) time(s).\(said)Nothing was changed: try again, or work with --offline and run rollout sync later"
        case .unpushed(let count, let remote):
            return
                "this repository holds \(count) change(s) that \(remote) does not have (made with --offline, or the remote was reset): run rollout sync first. Nothing was changed"
        case .replayClash(let mine, let commit, let path, let remote, let their, let other):
            return
                "cannot replay \"\(mine)\" (\(commit)), made offline: \(path) was also changed on \(remote) by \"\(their)\" (\(other)). Nothing was changed. Look at both with rollout log; to drop the offline changes and take the remote's, run rollout sync --discard-local, then redo what is still needed"
        }
    }

    // MARK: keys

    static func keys(_ refusal: KeyRefusal) -> String {
        switch refusal {
        case .alreadyInitialized(let version):
            return
                "the repository already has a key list (version \(version)); change it with rollout keys rotate, revoke or rotate-root, and see it with rollout keys list"
        case .noKeyList:
            return "the repository has no key list; run rollout keys init --out DIR first (docs/keys.md)"
        case .notARoot(let file, let id, let role, let version, let roots):
            let held = role.map { "it is a \($0) key" } ?? "its id \(id) is not listed"
            return
                "--root \(file) is not a root key of key list version \(version) (\(held)); its roots are \(roots.joined(separator: ", "))"
        case .tooFewRoots(let given, let distinct, let threshold, let roots, let version):
            let names = given.isEmpty ? "none" : given.joined(separator: ", ")
            return
                "key list version \(version) needs \(threshold) of its \(roots) root keys to sign the next one; --root gave \(distinct) (\(names)). Give one --root FILE per root key"
        case .alreadyRevoked(let id, let reason, let time):
            return "\(id) is already revoked (\(reason), \(time)); nothing to do"
        case .revokingARoot(let id):
            return
                "\(id) is a root key; replace it with rollout keys rotate-root (without --keep \(id)), signed by the other roots"
        case .keptNotARoot(let text, let version, let roots):
            return
                "--keep \(text) is not a root key of key list version \(version); its roots are \(roots.joined(separator: ", "))"
        case .unknownKey(let text, let version):
            return "no key of key list version \(version) has the id \(text); rollout keys list shows the ids"
        case .ambiguousKey(let text, let matches):
            return "\(text) is the start of several key ids (\(matches.joined(separator: ", "))); give more of the id"
        case .shortKeyID(let text):
            return
                "\"\(text)\" is not a key id: give the 16 hex digits rollout keys list shows, or a unique start of at least 8"
        case .untrusted(let failure):
            return "refused, nothing was written: devices would refuse the new key list (\(failure.description))"
        case .invalid(let problem):
            return "refused, nothing was written: the new key list \(problem)"
        case .expiryTooLate(let lifetime, let now):
            return
                "--expires \(TimeSpan.describe(lifetime)) from \(now) ends past 9999-12-31T23:59:59Z, the last time a device can read; give a shorter --expires. Nothing was written"
        }
    }

    // MARK: revert

    static func revert(_ refusal: RevertRefusal) -> String {
        switch refusal {
        case .notATarget(let text, let locale):
            return "--to \"\(text)\" is not a content version (16, or \(locale)@16) or bundled"
        case .targetOfAnotherLocale(let text, let id, let locale):
            return "--to \(text) is a \(id.locale) pack; reverting \(locale) needs a \(locale) version"
        case .segmentWithTarget:
            return "--segment takes devices back to the baseline; it cannot be combined with --to"
        case .nothingStagedToWithdraw(let locale, let segment):
            return
                "nothing is staged for \(locale), so there is nothing to take back from \(segment); to go back everywhere, run rollout revert \(locale)"
        case .nothingPromoted(let locale):
            return "nothing was ever promoted for \(locale): devices already use their bundled strings"
        case .noEarlierBaseline(let locale, let baseline):
            return
                "\(locale)@\(baseline) is the only good baseline \(locale) has had: there is no earlier one to go back to. Use --to bundled for the kill switch, or promote a fix"
        case .targetBlocked(let locale, let version):
            return "\(locale)@\(version) is blocked: a revert cannot go back to a version that was itself reverted"
        case .targetNotEarlier(let locale, let version):
            return
                "\(locale)@\(version) is not earlier than what devices receive now; to move forward, use rollout promote"
        }
    }

    // MARK: metrics ingest and retract

    static func ingest(_ refusal: IngestRefusal) -> String {
        switch refusal {
        case .gzipTextOverLimit(let file, let text, let limit):
            return "\(file): the gzip data expands to more than \(limit) bytes of text (\(ByteCount.describe(limit))), "
                + "the most metrics ingest inflates; it was refused after \(text) bytes. If the export really is that large, "
                + "raise --max-gzip-text (docs/metrics.md, \"Gzip input\"); nothing was ingested"
        case .gzipRatioOverLimit(let file, let text, let consumed, let limit):
            return "\(file): the gzip data expands more than \(limit) times (\(text) bytes of text "
                + "from the first \(consumed) bytes of the file): a decompression bomb, not a CSV export, "
                + "which compresses 4 to 20 times; it was refused before inflating the rest. If the export really is "
                + "that repetitive, raise --max-gzip-ratio (docs/metrics.md, \"Gzip input\"); nothing was ingested"
        case .headerLacks(let place, let missing, let found, let kind):
            let (total, events) = kind?.columns ?? ("exposures", "conversions")
            let named = kind.map { "a \($0.rawValue) CSV" } ?? "an outcome CSV"
            let metric = kind?.isOutcome ?? true ? "metric, " : ""
            return
                "\(place): the header lacks \(missing.joined(separator: ", ")) (found: \(found.joined(separator: ", "))); "
                + "\(named) needs date, locale, pack, region, app_version, \(metric)\(total), \(events); "
                + "--map NAME=COLUMN renames"
        case .noRowsOfMetric(let file, let metric, let others):
            let instead =
                others.isEmpty
                ? "it has no row of any metric"
                : "it names \(others.joined(separator: ", ")); ingest those with --kind outcome-\(others[0])"
                    + (others.count > 1 ? " (and so on)" : "") + ", or every metric of the file with --kind outcome"
            return "\(file): no row has metric \(metric), so nothing was ingested as outcome-\(metric): \(instead)"
        case .namesNoMetric(let file):
            return "\(file): no row names a metric (column metric), so nothing was ingested; "
                + "an outcome CSV has one row per date, pack, region, app_version and metric"
        case .invalidRows(let file, let shown, let count, let rows):
            let listed = shown.map { "  \(file):\($0.line): \($0.message)" }.joined(separator: "\n")
            let more = count > shown.count ? "\n  ... and \(count - shown.count) more" : ""
            // With no good row, --skip-invalid would keep nothing: it is not offered.
            let which =
                count != rows
                ? "\(count) of \(rows) rows are invalid"
                : rows == 1 ? "its one row is invalid" : "all \(rows) rows are invalid"
            let offer = count == rows ? "" : " (--skip-invalid keeps the good rows)"
            return "\(file): \(which); nothing was ingested\(offer):\n\(listed)\(more)"
        case .ingestedAsSeveralKinds(let source, let kinds):
            let named = kinds.map(\.rawValue)
            let listed =
                named.count == 2
                ? "both \(named[0]) and \(named[1])" : named.dropLast().joined(separator: ", ") + " and " + named.last!
            let outcomes = kinds.filter(\.isOutcome).count
            return "\(source) was ingested as \(listed); say which to retract with --kind"
                + (outcomes > 1 ? " (--kind outcome: every outcome kind of it, in one commit)" : "")
        case .notADigest(let source, let minimumPrefix):
            return "\(source) is neither a file nor a digest: give the ingested file, or its digest as sha256:HEX "
                + "(at least \(minimumPrefix) lowercase hex digits; rollout log shows it)"
        case .noSuchIngest(let source, let kind):
            return "\(source): no file with this digest was ingested\(kind.map { " as \($0)" } ?? ""); "
                + "rollout log lists the ingests with their digests"
        case .damagedProvenance(let path):
            return "\(path) is damaged: not a provenance record; check the repository with rollout verify"
        }
    }

    // MARK: import

    static func importing(_ refusal: ImportRefusal) -> String {
        /// The locales that fall back to the source locale, as the sentences count them.
        func fallingBack(_ dependents: [String]) -> String {
            "\(dependents.count) locale(s) (\(dependents.prefix(5).joined(separator: ", ")))"
        }
        switch refusal {
        case .catalogTooLarge(let path, let bytes, let limit):
            return
                "\(path): the catalog file is \(bytes) bytes, over the limit of \(limit) (\(ByteCount.describe(limit))); "
                + "raise it with --max-catalog-bytes (at most \(ByteCount.describe(InputLimits.catalogBytesCeiling)))"
        case .localesMatchNone(let catalog, let asked, let has):
            return
                "\(catalog): --locale \(asked.joined(separator: ", ")) matches no locale of the catalog; it has \(has.isEmpty ? "none" : has.joined(separator: ", "))"
        case .catalogHasNoStrings(let catalog):
            return "\(catalog): no locale has a string to import: the catalog has none (check PATH and --format)"
        case .sourceLocaleNotInCatalog(let catalog, let source, let has, let dependents):
            return
                "\(catalog): the source locale \(source) is not in the catalog and has no stored pack: name the catalog's development language with --source-locale L (it has \(has.joined(separator: ", "))); \(fallingBack(dependents)) would fall back to \(source)"
        case .sourceLocaleNotImported(let catalog, let source, let dependents):
            return
                "\(catalog): the source locale \(source) has no stored pack and is not imported: add --locale \(source) (or import it first); \(fallingBack(dependents)) fall back to it"
        case .sourceLocaleLeftOut(let catalog, let source, let dependents):
            return
                "\(catalog): every string of the source locale \(source) was left out, so it makes no pack, and it has no stored pack: fix its strings in the catalog (listed below), or name another development language with --source-locale L; \(fallingBack(dependents)) fall back to it"
        case .noMinAppVersion(let locale):
            return
                "\(locale) has no stored pack to take minAppVersion from: give --min-app-version V (the oldest app version these strings suit)"
        }
    }

    // MARK: report

    static func report(_ refusal: ReportRefusal) -> String {
        switch refusal {
        case .nothingPromoted(let locale):
            return
                "nothing was ever promoted for \(locale): there is no rollout to report on yet (rollout promote \(locale)@N --to 10% starts one)"
        }
    }
}
