import RolloutModel

extension MetricsIngest {
    /// The metrics an outcome CSV names (its `metric` column), sorted: the kinds `--kind outcome`
    /// ingests the file as, one `outcome-<metric>` each. One pass over the file that looks at one
    /// field per row, each distinct spelling once (`Column`). A spelling that is no metric name is
    /// left out here: reading the file as each kind reports it as a bad row, with its line; when no
    /// row names a metric, there is no kind to read it as, and the refusal here names the bad rows
    /// by line as those readings would. Refuses a header without the metric column (as any outcome
    /// kind would) and a file without rows.
    public static func outcomeMetrics(
        path: String, name: String, mapping: [String: String], gzipLimits: GzipLimits = .default
    ) throws -> [String] {
        var names = MetricNames(name: name, column: (mapping[MetricKind.metricColumn] ?? MetricKind.metricColumn))
        _ = try reading(name) { try CSVReader.read(path: path, gzipLimits: gzipLimits, sink: &names) }
        guard names.index != nil else { throw RolloutError.emptyMetricsFile(name) }
        guard !names.found.isEmpty else {
            // Every row is bad: named by its line, as any kind's reading would name it.
            if names.badCount > 0 {
                throw IngestRefusal.invalidRows(
                    file: name, shown: names.bad.map { .init(line: $0.line, message: $0.message) },
                    count: names.badCount, rows: names.rows)
            }
            throw IngestRefusal.namesNoMetric(file: name)
        }
        return names.found.sorted()
    }
}

/// The `metric` column's distinct valid names, the header found by `column` (its name, any case).
struct MetricNames: CSVRecordSink {
    let name: String
    let column: String
    var index: Int?
    var columns = 0
    var spellings = Column()
    var found: Set<String> = []
    /// The rows, and those that name no metric (a row of the wrong length, a field that is no metric
    /// name), the first `shownBadRows` with their line: what the refusal names when no row names one.
    var rows = 0
    var badCount = 0
    var bad: [(line: Int, message: String)] = []

    mutating func record(_ fields: CSVRecord, line: Int) throws {
        guard let index else { return try readHeader(fields, line: line) }
        rows &+= 1
        guard fields.count == columns else {
            return reject(line, "\(fields.count) fields, the header has \(columns)")
        }
        let bytes = fields[index]
        var valid: Int32
        switch spellings.find(bytes) {
        case .known(let meaning): valid = meaning
        case .unknown:
            let text = RowReader.text(bytes).trimmingSpaces
            valid = Plan.Experiment.isValidMetric(text) ? 1 : 0
            if valid == 1 { found.insert(text) }
            spellings.remember(bytes, meaning: valid)
        }
        if valid == 0 { reject(line, RowReader.notAMetric(RowReader.text(bytes).trimmingSpaces)) }
    }

    mutating func reject(_ line: Int, _ message: String) {
        badCount &+= 1
        if bad.count < MetricsIngest.shownBadRows { bad.append((line, message.oneLine)) }
    }

    mutating func readHeader(_ fields: CSVRecord, line: Int) throws {
        let header = (0..<fields.count).map { RowReader.text(fields[$0]).trimmingSpaces.lowercased() }
        guard let at = header.firstIndex(of: column.lowercased()) else {
            let missing =
                column == MetricKind.metricColumn ? column : "\(MetricKind.metricColumn) (mapped to \(column))"
            throw IngestRefusal.headerLacks(place: "\(name):\(line)", missing: [missing], found: header, kind: nil)
        }
        index = at
        columns = fields.count
    }
}
