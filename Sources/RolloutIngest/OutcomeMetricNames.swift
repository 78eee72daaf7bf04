import RolloutModel

extension MetricsIngest {
    /// The metrics an outcome CSV names (its `metric` column), sorted: the kinds `--kind outcome`
    /// ingests the file as, one `outcome-<metric>` each. One pass over the file that looks at one
    /// field per row, each distinct spelling once (`Column`). A spelling that is no metric name is
    /// left out here: reading the file as each kind reports it as a bad row, with its line. Refuses
    /// a header without the metric column (as any outcome kind would) and a file that names no
    /// metric.
    public static func outcomeMetrics(
        path: String, name: String, mapping: [String: String], gzipLimits: GzipLimits = .default
    ) throws -> [String] {
        var names = MetricNames(name: name, column: (mapping[MetricKind.metricColumn] ?? MetricKind.metricColumn))
        _ = try reading(name) { try CSVReader.read(path: path, gzipLimits: gzipLimits, sink: &names) }
        guard names.index != nil else { throw RolloutError.emptyMetricsFile(name) }
        guard !names.found.isEmpty else { throw IngestRefusal.namesNoMetric(file: name) }
        return names.found.sorted()
    }
}

/// The `metric` column's distinct valid names, the header found by `column` (its name, any case).
struct MetricNames: CSVRecordSink {
    let name: String
    let column: String
    var index: Int?
    var spellings = Column()
    var found: Set<String> = []

    mutating func record(_ fields: CSVRecord, line: Int) throws {
        guard let index else { return try readHeader(fields, line: line) }
        // A short row is a bad row of every kind; each kind's reading names its line.
        guard index < fields.count else { return }
        let bytes = fields[index]
        guard case .unknown = spellings.find(bytes) else { return }
        let text = RowReader.text(bytes).trimmingSpaces
        if Plan.Experiment.isValidMetric(text) { found.insert(text) }
        spellings.remember(bytes, meaning: 0)
    }

    mutating func readHeader(_ fields: CSVRecord, line: Int) throws {
        let header = (0..<fields.count).map { RowReader.text(fields[$0]).trimmingSpaces.lowercased() }
        guard let at = header.firstIndex(of: column.lowercased()) else {
            let missing =
                column == MetricKind.metricColumn ? column : "\(MetricKind.metricColumn) (mapped to \(column))"
            throw IngestRefusal.headerLacks(place: "\(name):\(line)", missing: [missing], found: header, kind: nil)
        }
        index = at
    }
}
