import RolloutModel
import RolloutStore

/// The per-row work of `metrics ingest`: the header, validation, and the sums, on borrowed bytes.
///
/// Dates, packs, regions and app versions repeat on nearly every row of an export, so each distinct
/// spelling of each is parsed and validated once (`SpellingTable`) and becomes a small integer (an
/// id in `GroupValues`); a row's group is those ids packed into two words (`GroupKey`), summed in a
/// table of fixed size that spills sorted runs to disk when full (`GroupSums`). Nothing is
/// allocated per row. Memory follows the number of distinct values of each column, never the
/// number of groups or the size of the file.
struct RowReader: CSVRecordSink {
    struct Columns {
        let date: Int
        let locale: Int?
        let pack: Int
        let region: Int
        let app: Int
        let total: Int
        let events: Int
        let count: Int
        /// The optional `tester` column: rows it marks come from tester devices and are left out.
        let tester: Int?
        /// An outcome CSV's `metric` column: rows of other metrics are left out.
        let metric: Int?
    }

    let request: MetricsIngest.Request
    let snapshot: Snapshot
    let totalName: String
    let eventsName: String
    var columns: Columns?
    var rows = 0
    var bad: [(line: Int, message: String)] = []
    var badCount = 0
    /// Rows from tester devices (the `tester` column), left out: they are not a random sample, so
    /// they never reach a rollup, health or the sample ratio check (docs/metrics.md).
    var testerRows = 0
    /// For an outcome kind (`outcome-<metric>`): its metric, the rows that name it, the rows of
    /// other metrics (left out: each is a kind of its own) and those metrics' names.
    let metric: String?
    var metricRows = 0
    var otherMetricRows = 0
    var otherMetrics: Set<String> = []
    var metricNames = Column()
    var values = GroupValues()
    var sums: GroupSums

    /// Each column's distinct spellings and what each means.
    var dates = Column()
    var packs = Column()
    var regions = Column()
    var apps = Column()
    var problems: [String] = []
    var knownPacks: [String: Set<Int>] = [:]
    /// Per pack (its index in `values`): how much its exposures may still add up to, and what this
    /// file has added so far. Exposures bound events, so this keeps every sum of the pack's counts
    /// a reader computes within the one range (MetricCounts.maximum).
    var packRoom: [Int] = []
    var packAdded: [Int] = []
    var storedTotals: [String: MetricTotals] = [:]
    /// The policy's date window on the day of the ingest, and today (days since the epoch).
    let window: MetricDateWindow
    let today: Int

    init(request: MetricsIngest.Request, snapshot: Snapshot) throws {
        self.request = request
        self.snapshot = snapshot
        window = try snapshot.policy().gates.dates
        today = Int((request.now.seconds - (request.now.seconds % 86_400 + 86_400) % 86_400) / 86_400)
        (totalName, eventsName) = request.kind.columns
        metric = request.kind.metric
        sums = try GroupSums(memory: request.memory, directory: request.temporaryDirectory)
    }

    static func text(_ bytes: UnsafeBufferPointer<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }

    /// Counts an invalid row; its message is kept only while fewer than `shownBadRows` are.
    mutating func reject(_ line: Int, _ message: String) {
        badCount += 1
        // A row's message is one line of output: a newline inside a quoted field must not fake another.
        if bad.count < MetricsIngest.shownBadRows { bad.append((line, message.oneLine)) }
    }

    /// Counts an invalid row that belongs to no metric, when this reading reports those; otherwise
    /// it is a row left out as not the kind's (another kind of the same file reports it).
    mutating func rejectOfNoMetric(_ line: Int, _ message: String) {
        guard request.reportsRowsOfNoMetric else {
            otherMetricRows &+= 1
            return
        }
        reject(line, message)
    }

    /// The meaning of an invalid spelling whose message is never shown: it is found once the list
    /// of shown rows is full, and that list only grows, so no row will need it.
    static let unshown = -Int32.max

    /// The meaning of an invalid spelling. Once the shown rows are full, no message is built or
    /// kept: past `SpellingTable.limit` a column stops remembering, and a file of distinct
    /// invalid values would otherwise add one message per row.
    mutating func problem(_ message: @autoclosure () -> String) -> Int32 {
        guard bad.count < MetricsIngest.shownBadRows else { return RowReader.unshown }
        problems.append(message().oneLine)
        return -Int32(problems.count)
    }

    /// Why a spelling with a negative meaning is invalid.
    func problem(of meaning: Int32) -> String { meaning == RowReader.unshown ? "" : problems[Int(-meaning - 1)] }

    mutating func record(_ fields: CSVRecord, line: Int) throws {
        do {
            try row(fields, line: line)
        } catch let tooMany as GroupValues.TooMany {
            throw RolloutError.badInput("\(request.name):\(line): \(tooMany.message); nothing was ingested")
        }
    }

    @inline(__always)
    mutating func row(_ fields: CSVRecord, line: Int) throws {
        guard let columns else { return try readHeader(fields, line: line) }
        rows &+= 1
        guard fields.count == columns.count else {
            return rejectOfNoMetric(line, "\(fields.count) fields, the header has \(columns.count)")
        }
        if let metricColumn = columns.metric, !isOfTheMetric(fields[metricColumn], line: line) { return }
        if let tester = columns.tester, RowReader.marksTester(fields[tester]) {
            testerRows &+= 1
            return
        }

        let dateBytes = fields[columns.date]
        var day: Int32
        switch dates.find(dateBytes) {
        case .known(let meaning): day = meaning
        case .unknown:
            day = try dayMeaning(dateBytes)
            dates.remember(dateBytes, meaning: day)
        }
        guard day >= 0 else { return reject(line, problem(of: day)) }

        let packBytes = fields[columns.pack]
        let localeBytes = columns.locale.map { fields[$0] }
        var pack: Int32
        switch packs.find(packBytes, localeBytes) {
        case .known(let meaning): pack = meaning
        case .unknown:
            pack = try packMeaning(packBytes, locale: localeBytes)
            packs.remember(packBytes, localeBytes, meaning: pack)
        }
        guard pack >= 0 else { return reject(line, problem(of: pack)) }

        let regionBytes = fields[columns.region]
        var region: Int32
        switch regions.find(regionBytes) {
        case .known(let meaning): region = meaning
        case .unknown:
            region = try regionMeaning(regionBytes)
            regions.remember(regionBytes, meaning: region)
        }
        guard region >= 0 else { return reject(line, problem(of: region)) }

        let appBytes = fields[columns.app]
        var app: Int32
        switch apps.find(appBytes) {
        case .known(let meaning): app = meaning
        case .unknown:
            app = try appMeaning(appBytes)
            apps.remember(appBytes, meaning: app)
        }
        guard app >= 0 else { return reject(line, problem(of: app)) }
        try add(fields, columns, line: line, day: day, pack: pack, region: region, app: app)
    }

    /// The row's counts, checked, added to its group (the ids of its valid date, pack, region and app
    /// version).
    @inline(__always)
    mutating func add(
        _ fields: CSVRecord, _ columns: Columns, line: Int, day: Int32, pack: Int32, region: Int32, app: Int32
    ) throws {
        guard let total = MetricsIngest.parseCount(fields[columns.total]) else {
            return reject(line, RowReader.notACount(totalName, fields[columns.total]))
        }
        guard let events = MetricsIngest.parseCount(fields[columns.events]) else {
            return reject(line, RowReader.notACount(eventsName, fields[columns.events]))
        }
        guard events <= total else { return reject(line, "\(eventsName) \(events) > \(totalName) \(total)") }
        guard total <= packRoom[Int(pack)] &- packAdded[Int(pack)] else { return reject(line, outOfRange(pack: pack)) }
        packAdded[Int(pack)] &+= total
        try sums.add(
            high: GroupKey.high(locale: values.packLocales[Int(pack)], day: day, pack: pack),
            low: GroupKey.low(region: region, app: app), total: total, events: events)
    }

    // What a spelling means: an index into the column's distinct values in `values` (0 or more), or
    // -1 - the index in `problems` of the message that says why it is invalid (or `unshown`).

    /// Whether the row of an outcome CSV whose metric field is `bytes` is one of the kind's metric;
    /// otherwise it is counted as another metric's (left out) or rejected (no metric name).
    @inline(__always)
    mutating func isOfTheMetric(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) -> Bool {
        var meaning: Int32
        switch metricNames.find(bytes) {
        case .known(let known): meaning = known
        case .unknown:
            meaning = metricMeaning(bytes)
            metricNames.remember(bytes, meaning: meaning)
        }
        if meaning == RowReader.otherMetric {
            otherMetricRows &+= 1
            return false
        }
        guard meaning >= 0 else {
            rejectOfNoMetric(line, problem(of: meaning))
            return false
        }
        metricRows &+= 1
        return true
    }

    /// What a `metric` field means: `thisMetric`, `otherMetric`, or not a metric name (a problem).
    mutating func metricMeaning(_ bytes: UnsafeBufferPointer<UInt8>) -> Int32 {
        let text = RowReader.text(bytes).trimmingSpaces
        if text == metric { return RowReader.thisMetric }
        guard Plan.Experiment.isValidMetric(text) else {
            return problem(RowReader.notAMetric(text))
        }
        otherMetrics.insert(text)
        return RowReader.otherMetric
    }

    static let thisMetric: Int32 = 0
    static let otherMetric: Int32 = 1

    mutating func dayMeaning(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Int32 {
        guard let day = MetricsIngest.parseDay(bytes) else {
            return problem(MetricsIngest.notADate(RowReader.text(bytes)))
        }
        // The one place rows are held to the policy's date window (docs/metrics.md, "The date window").
        let (window, today) = (self.window, self.today)
        let accepted = window.days(today: today)
        guard accepted.contains(day) else {
            return problem(MetricsIngest.outsideWindow(day, accepted: accepted, today: today, window: window))
        }
        return try values.dayIndex(day)
    }

    mutating func packMeaning(_ packBytes: UnsafeBufferPointer<UInt8>, locale localeBytes: UnsafeBufferPointer<UInt8>?)
        throws -> Int32
    {
        let localeText = localeBytes.map { RowReader.text($0).trimmingSpaces }
        switch MetricsIngest.resolvePack(RowReader.text(packBytes).trimmingSpaces, localeText: localeText) {
        case .failure(let problem):
            return self.problem(problem.message)
        case .success(let (locale, version)):
            if knownPacks[locale] == nil { knownPacks[locale] = Set((try? snapshot.contentVersions(of: locale)) ?? []) }
            guard knownPacks[locale]!.contains(version) else {
                return problem("unknown pack \(locale)@\(version): the repository does not hold it")
            }
            let index = try values.packIndex(PackID(locale: locale, contentVersion: version))
            if Int(index) == packRoom.count {
                if storedTotals[locale] == nil {
                    storedTotals[locale] = try MetricsLayout.totals(request.kind, locale: locale, in: snapshot)
                }
                packRoom.append(MetricCounts.maximum - storedTotals[locale]!.total(of: version))
                packAdded.append(0)
            }
            return index
        }
    }

    func outOfRange(pack: Int32) -> String {
        let id = values.packs[Int(pack)]
        let stored = storedTotals[id.locale]?.total(of: id.contentVersion) ?? 0
        return "the \(totalName) of \(id) would add up past \(MetricCounts.maximum), the most rollout counts exactly"
            + (stored > 0 ? " (\(stored) already stored)" : "") + "; split the export or check its counts"
    }

    mutating func regionMeaning(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Int32 {
        let text = RowReader.text(bytes).trimmingSpaces
        guard let region = (try? Region.parse(text)).flatMap({ $0 == Region.any ? nil : $0 }) else {
            return problem("region \"\(text)\" is not an ISO 3166-1 alpha-2 code")
        }
        return try values.regionIndex(region)
    }

    mutating func appMeaning(_ bytes: UnsafeBufferPointer<UInt8>) throws -> Int32 {
        let text = RowReader.text(bytes).trimmingSpaces
        guard let version = AppVersion(text)?.normalized else {
            return problem("app_version \"\(text)\" is not a numeric version")
        }
        return try values.appIndex(version)
    }

    mutating func readHeader(_ fields: CSVRecord, line: Int) throws {
        let found = (0..<fields.count).map { RowReader.text(fields[$0]).trimmingSpaces.lowercased() }
        var index: [String: Int] = [:]
        for (i, name) in found.enumerated() where index[name] == nil { index[name] = i }
        func column(_ canonical: String) -> Int? { index[(request.mapping[canonical] ?? canonical).lowercased()] }
        let required =
            ["date", "pack", "region", "app_version"] + (metric == nil ? [] : [MetricKind.metricColumn])
            + [totalName, eventsName]
        let missing = required.filter { column($0) == nil }
        if !missing.isEmpty {
            let described = missing.map { name in request.mapping[name].map { "\(name) (mapped to \($0))" } ?? name }
            throw IngestRefusal.headerLacks(
                place: "\(request.name):\(line)", missing: described, found: found, kind: request.kind)
        }
        columns = Columns(
            date: column("date")!, locale: column("locale"), pack: column("pack")!, region: column("region")!,
            app: column("app_version")!, total: column(totalName)!, events: column(eventsName)!, count: found.count,
            tester: column("tester"), metric: metric == nil ? nil : column(MetricKind.metricColumn))
    }

    /// Whether a `tester` field marks its row as a tester device's: anything but empty, `0`,
    /// `false` or `no` (in any case), so `1`, `true`, `yes` and a group name such as `qa` all do.
    static func marksTester(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let text = RowReader.text(bytes).trimmingSpaces.lowercased()
        return !["", "0", "false", "no"].contains(text)
    }
}

extension RowReader {
    /// A `metric` field that is no metric name (`Plan.Experiment.isValidMetric`).
    static func notAMetric(_ text: String) -> String {
        "metric \"\(text)\" is not a metric name (a lowercase letter, then lowercase letters, digits and _, "
            + "at most 40)"
    }

    /// A count field that is not a count (`what` is the column's name).
    fileprivate static func notACount(_ what: String, _ bytes: UnsafeBufferPointer<UInt8>) -> String {
        let text = RowReader.text(bytes)
        let digits = text.trimmingSpaces
        if digits.count > 12, digits.isDecimalDigits {
            return "\(what) \(digits) has \(digits.count) digits; a count has at most 12 "
                + "(up to 999999999999; the counts of one pack add up to at most \(MetricCounts.maximum))"
        }
        return "\(what) \"\(text)\" is not a whole number of 0 or more"
    }
}
