import RolloutModel

/// Why a change is made (`--reason TEXT`): it goes into a commit of the shared history, so its length
/// is bounded when the parser reads it, before the command runs (docs/reliability.md, "Input limits").
extension Option where Value == String {
    /// `keyList`: the reason is also written into the key list every device downloads (`keys revoke`),
    /// so it is bounded far tighter.
    package static func reason(_ help: String, keyList: Bool = false) -> Option<String> {
        var option = Option("reason", "TEXT", help)
        option.spec.checkedWhenRead = { text in
            let bytes = text.utf8.count
            if keyList, bytes > InputLimits.keyListReasonBytes {
                throw RolloutError.usage(
                    "--reason is \(bytes) bytes; at most \(InputLimits.keyListReasonBytes) go into the key list every device downloads (say the rest in the commit's history elsewhere)"
                )
            }
            if bytes > InputLimits.reasonBytes {
                throw RolloutError.usage(
                    "--reason is \(bytes) bytes, over the limit of \(InputLimits.reasonBytes): say the rest elsewhere and link it"
                )
            }
        }
        return option
    }
}
