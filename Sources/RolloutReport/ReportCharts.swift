import Foundation
import RolloutModel

/// The report's charts (docs/report.md): each is a function of the values it draws.
///
/// A chart is a `figure`: its legend above the drawing (never on the data), the y labels in a column
/// left of it and the x labels under it, all HTML text at the page's own size, so a phone reads
/// them as a desktop does. Only the lines, bands and dots are SVG: the drawing's coordinates run
/// from 0 to 100 on both axes, the stylesheet stretches it to the width of the page and a fixed
/// height, and strokes and dots keep their size in pixels (`vector-effect: non-scaling-stroke`).
enum ReportCharts {
    typealias Day = ReportContent.Day

    static let namespace = "http://www.w3.org/2000/svg"

    /// Maps values to the drawing: x from 0 (left) to 100 (right), y from 100 (bottom) to 0 (top).
    struct Plot {
        let xs: ClosedRange<Double>
        let ys: ClosedRange<Double>
        func x(_ v: Double) -> Double { (v - xs.lowerBound) / max(1e-12, xs.upperBound - xs.lowerBound) * 100 }
        func y(_ v: Double) -> Double { 100 - (v - ys.lowerBound) / max(1e-12, ys.upperBound - ys.lowerBound) * 100 }
    }

    /// A labelled position on an axis. A minor tick is left out on a narrow screen.
    struct Tick: Equatable {
        let value: Double
        let label: String
        var minor = false
    }

    /// An entry of a legend: the class that colours it like its series, and its text.
    struct Key {
        let `class`: String
        let text: Markup
    }

    // MARK: charts

    /// A strip with one dot per change, or nil without changes. Changes too close to tell apart
    /// (within 3% of the width, a dot's width on a phone) stack upwards in one column, at the time
    /// of the first of them.
    static func timeline(_ changes: [ReportContent.Change]) -> Markup? {
        guard let first = changes.first, let last = changes.last else { return nil }
        let (ticks, domain) = timeTicks(first.time.seconds, max(last.time.seconds, first.time.seconds + 3600))
        let plot = Plot(xs: domain, ys: 0...1)
        var columns: [(x: Double, changes: [ReportContent.Change])] = []
        for change in changes {
            let x = plot.x(Double(change.time.seconds))
            if let column = columns.last, x - column.x < 3 {
                columns[columns.count - 1].changes.append(change)
            } else {
                columns.append((x, [change]))
            }
        }
        let height = 12 + 14 * (columns.map(\.changes.count).max() ?? 1)
        let base = Double(height) - 7
        var marks = [
            Markup.empty(
                "line", ["class": "axis", "x1": "0", "y1": coordinate(base), "x2": "100", "y2": coordinate(base)])
        ]
        for column in columns {
            for (row, change) in column.changes.enumerated() {
                let (x, y) = (coordinate(column.x), coordinate(base - 14 * Double(row)))
                marks.append(
                    .element(
                        "line", ["class": "event action-\(change.action)", "x1": x, "y1": y, "x2": x, "y2": y],
                        .element("title", "\(change.time) \(change.summary)")))
            }
        }
        let svg = svg(
            [
                "xmlns": namespace, "class": "plot", "id": "timeline-chart", "viewBox": "0 0 100 \(height)",
                "preserveAspectRatio": "none", "style": "height:\(height)px", "role": "img", "aria-label": "timeline",
            ],
            title: "Changes to this locale over time", marks)
        return .element(
            "figure", ["class": "chart timeline-chart"],
            .element("div", ["class": "drawing"], svg, xAxis(ticks, plot)))
    }

    /// For each pack a rule staged, the share of devices it had after each change, as steps: a
    /// revert drops it to zero. A series is named by its pack (`tr-TR@18`), and by its pack and
    /// segment when rules staged one pack in several segments. Nil when no change staged anything.
    static func shares(_ changes: [ReportContent.Change]) -> Markup? {
        var series: [String: [(time: Double, percent: Double)]] = [:]
        var names: [String: (pack: String, segment: String)] = [:]
        var times: [Int64] = []
        for change in changes {
            guard let shares = change.shares else { continue }
            let t = Double(change.time.seconds)
            times.append(change.time.seconds)
            for share in shares {
                let key = "\(share.pack) \(share.segment)"
                names[key] = (share.pack, share.segment)
                series[key, default: []].append((t, share.percent))
            }
            let seen = Set(shares.map { "\($0.pack) \($0.segment)" })
            for key in series.keys where !seen.contains(key) { series[key]!.append((t, 0)) }
        }
        guard !series.isEmpty, let first = times.first, let last = times.last else { return nil }
        let (xTicks, domain) = timeTicks(first, max(last, first + 3600))
        let plot = Plot(xs: domain, ys: 0...100)
        var marks: [Markup] = []
        var keys: [Key] = []
        let segmentsOfPack = Dictionary(grouping: names.values, by: \.pack).mapValues(\.count)
        for (index, key) in series.keys.sorted().enumerated() {
            var steps: [(Double, Double)] = []
            for (i, point) in series[key]!.enumerated() {
                if i > 0 { steps.append((point.time, steps.last!.1)) }
                steps.append(point)
            }
            steps.append((domain.upperBound, steps.last!.1))
            marks.append(
                .empty("polyline", ["class": "series share share-\(index % 4)", "points": points(steps, plot)]))
            let (pack, segment) = names[key]!
            keys.append(
                Key(
                    class: "share-\(index % 4)",
                    text: Markup(segmentsOfPack[pack]! > 1 ? "\(pack) in \(segment)" : pack)))
        }
        let yTicks = stride(from: 0, through: 100, by: 25).map { Tick(value: Double($0), label: "\($0)%") }
        return chart("shares", title: "share of devices on each staged pack", plot, keys, x: xTicks, y: yTicks, marks)
    }

    /// Each arm's rate per day.
    static func rates(_ kind: MetricKind, series: [Day], candidate: String, baseline: String) -> Markup {
        let (xTicks, days) = dayTicks(series)
        let rates: [Double] = series.flatMap { day -> [Double] in [day.candidate.rate ?? 0, day.baseline.rate ?? 0] }
        let (yTicks, ys) = percentTicks(0, rates.max() ?? 0, signed: false)
        let plot = Plot(xs: days, ys: ys)
        var marks = [
            Markup.empty(
                "polyline",
                [
                    "class": "series baseline",
                    "points": points(series.map { (Double($0.day), $0.baseline.rate ?? 0) }, plot),
                ]),
            Markup.empty(
                "polyline",
                [
                    "class": "series candidate",
                    "points": points(series.map { (Double($0.day), $0.candidate.rate ?? 0) }, plot),
                ]),
        ]
        for day in series {
            let x = coordinate(plot.x(Double(day.day)))
            let y = coordinate(plot.y(day.candidate.rate ?? 0))
            marks.append(.empty("line", ["class": "dot candidate", "x1": x, "y1": y, "x2": x, "y2": y]))
        }
        let keys = [
            Key(class: "candidate", text: "\(candidate) (candidate)"),
            Key(class: "baseline", text: "\(baseline) (baseline)"),
        ]
        return chart(
            "rates-\(kind.rawValue)", title: "\(kind.rawValue) rate per day: \(candidate) and \(baseline)", plot, keys,
            x: xTicks, y: yTicks, marks)
    }

    /// One day of the difference chart: the cumulative difference, its bounds and the gate.
    struct Difference {
        let day: Double
        let difference: Double
        let lower: Double
        let upper: Double
        let tolerance: Double
    }

    /// The candidate minus the baseline, cumulative to each day, with the time-uniform confidence
    /// band health uses and the gate's tolerance, on the days the band is defined.
    static func differences(_ series: [Day], gate: GatePolicy.RateGate, alpha: Double, planned: Int) -> [Difference] {
        var c = MetricCounts(total: 0, events: 0)
        var b = MetricCounts(total: 0, events: 0)
        var rows: [Difference] = []
        for day in series {
            c = c.adding(day.candidate) ?? c
            b = b.adding(day.baseline) ?? b
            guard let (lower, upper) = Health.bounds(candidate: c, baseline: b, alpha: alpha, plannedSamples: planned),
                let p1 = c.rate, let p0 = b.rate
            else { continue }
            let tolerance = max(gate.maxAbsoluteIncrease, gate.maxRelativeIncrease * p0)
            rows.append(
                Difference(day: Double(day.day), difference: p1 - p0, lower: lower, upper: upper, tolerance: tolerance))
        }
        return rows
    }

    /// The differences with their band and the gate: a band entirely above the gate is unhealthy.
    static func difference(_ kind: MetricKind, series: [Day], gate: GatePolicy.RateGate, alpha: Double, planned: Int)
        -> Markup
    {
        let rows = differences(series, gate: gate, alpha: alpha, planned: planned)
        let (xTicks, days) = dayTicks(series)
        let values: [Double] = rows.flatMap { row -> [Double] in [row.lower, row.upper, row.tolerance] } + [0]
        let (yTicks, ys) = percentTicks(values.min() ?? 0, values.max() ?? 0, signed: true)
        let plot = Plot(xs: days, ys: ys)
        var marks: [Markup] = []
        if !rows.isEmpty {
            let band = rows.map { ($0.day, $0.upper) } + rows.reversed().map { ($0.day, $0.lower) }
            marks.append(.empty("polygon", ["class": "band", "points": points(band, plot)]))
            marks.append(
                .empty(
                    "polyline",
                    ["class": "series difference", "points": points(rows.map { ($0.day, $0.difference) }, plot)]))
            marks.append(
                .empty("polyline", ["class": "gate", "points": points(rows.map { ($0.day, $0.tolerance) }, plot)]))
        }
        let zero = coordinate(plot.y(0))
        marks.append(.empty("line", ["class": "zero", "x1": "0", "y1": zero, "x2": "100", "y2": zero]))
        let gateLabel = rows.last.map { "+" + tickLabel($0.tolerance, step: $0.tolerance / 10) } ?? "-"
        let keys = [
            Key(class: "difference", text: "candidate minus baseline, cumulative"),
            Key(
                class: "band",
                text: "\(String(format: "%.1f", (1 - alpha) * 100))% confidence band, valid at every look"),
            Key(class: "gate", text: "gate: \(gateLabel) (unhealthy when the whole band is above it)"),
        ]
        return chart(
            "difference-\(kind.rawValue)",
            title: "\(kind.rawValue) rate, candidate minus baseline, cumulative, with its confidence band and the gate",
            plot, keys, x: xTicks, y: yTicks, marks)
    }

    // MARK: frame

    /// An SVG element: its title, then one line per mark.
    static func svg(_ attributes: Markup.Attributes, title: String, _ marks: [Markup]) -> Markup {
        .element("svg", attributes, .element("title", Markup(title)), .newline, .lines(marks))
    }

    /// A chart: the legend, then the y labels beside a drawing of the grid, the axes and `marks`,
    /// with the x labels under it.
    static func chart(
        _ id: String, title: String, _ plot: Plot, _ keys: [Key], x: [Tick], y: [Tick], _ marks: [Markup]
    ) -> Markup {
        var frame: [Markup] = y.map { tick in
            let at = coordinate(plot.y(tick.value))
            return .empty("line", ["class": "grid", "x1": "0", "y1": at, "x2": "100", "y2": at])
        }
        frame.append(.empty("line", ["class": "axis", "x1": "0", "y1": "100", "x2": "100", "y2": "100"]))
        frame.append(.empty("line", ["class": "axis", "x1": "0", "y1": "0", "x2": "0", "y2": "100"]))
        let drawing = svg(
            [
                "xmlns": namespace, "class": "plot", "id": id, "viewBox": "0 0 100 100", "preserveAspectRatio": "none",
                "role": "img", "aria-label": title,
            ],
            title: title, frame + marks)
        let yLabels = y.map { tick in
            Markup.element(
                "span", ["class": "tick", "style": "top:\(coordinate(plot.y(tick.value)))%"], Markup(tick.label))
        }
        let legend = keys.map { Markup.element("li", ["class": $0.class], $0.text) }
        return .element(
            "figure", ["class": "chart"], .element("ul", ["class": "legend"], Markup(legend)),
            .element(
                "div", ["class": "frame"], .element("div", ["class": "y-axis"], Markup(yLabels)),
                .element("div", ["class": "drawing"], drawing, xAxis(x, plot))))
    }

    /// The x labels under a drawing, each at its place: one near an edge is aligned to that edge so
    /// that it stays inside the page.
    static func xAxis(_ ticks: [Tick], _ plot: Plot) -> Markup {
        let labels = ticks.map { tick in
            let at = plot.x(tick.value)
            let edge = at < 8 ? " start" : at > 92 ? " end" : ""
            return Markup.element(
                "span", ["class": "tick\(edge)\(tick.minor ? " minor" : "")", "style": "left:\(coordinate(at))%"],
                Markup(tick.label))
        }
        return .element("div", ["class": "x-axis"], Markup(labels))
    }

    // MARK: ticks

    /// Round steps for an axis over `low...high`: 1, 2 or 5 times a power of ten, so that about
    /// `count` steps cover the range; the axis runs from the tick at or below `low` to the one at
    /// or above `high`. Returns the multiples of the step (`k * step`, `k` an integer, so no
    /// rounding error piles up) and the step.
    static func niceTicks(_ low: Double, _ high: Double, count: Int = 5) -> (ticks: [Double], step: Double) {
        var (low, high) = (min(low, high), max(low, high))
        if high - low < 1e-12 { (low, high) = low == 0 ? (0, 1e-4) : (low - abs(low) / 10, high + abs(high) / 10) }
        let raw = (high - low) / Double(max(1, count))
        let power = pow(10, (log10(raw)).rounded(.down))
        let fraction = raw / power
        let step = (fraction <= 1 + 1e-9 ? 1 : fraction <= 2 + 1e-9 ? 2 : fraction <= 5 + 1e-9 ? 5 : 10) * power
        let first = Int((low / step + 1e-9).rounded(.down))
        let last = Int((high / step - 1e-9).rounded(.up))
        return ((first...max(first + 1, last)).map { Double($0) * step }, step)
    }

    /// A fraction as a percentage with as many decimals as `step` needs and no trailing zeros:
    /// `0%`, `0.05%`, `0.1%`, `0.15%`, `-0.2%`.
    static func tickLabel(_ value: Double, step: Double) -> String {
        let decimals = max(0, -Int((log10(abs(step) * 100) + 1e-9).rounded(.down)))
        var text = String(format: "%.\(decimals)f", value * 100)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return (text == "-0" ? "0" : text) + "%"
    }

    /// The y ticks of a rate axis covering `low...high`, and the range they span; `signed` puts a
    /// `+` before a positive value (a difference).
    static func percentTicks(_ low: Double, _ high: Double, signed: Bool) -> ([Tick], ClosedRange<Double>) {
        let (values, step) = niceTicks(low, high)
        let ticks = values.map { v in Tick(value: v, label: (signed && v > 0 ? "+" : "") + tickLabel(v, step: step)) }
        return (ticks, values.first!...values.last!)
    }

    /// Round steps of time: hours, then days, then weeks.
    static let timeSteps: [Int64] =
        [1, 2, 3, 6, 12].map { $0 * 3600 } + [1, 2, 7, 14, 28, 56, 112].map { $0 * 86_400 }

    /// Ticks for times from `start` to `end` (seconds) at the first round step that needs at most six:
    /// the axis runs from the tick at or before `start` to the one at or after `end`. A tick at
    /// midnight reads `Nov 28`, one during a day `06:00` (the first `Nov 27 12:00`); with more
    /// than four, every other tick is minor (left out on a narrow screen), never the first or a
    /// midnight.
    static func timeTicks(_ start: Int64, _ end: Int64, minimumStep: Int64 = 3600) -> ([Tick], ClosedRange<Double>) {
        let span = max(end - start, 1)
        let step = timeSteps.first { $0 >= minimumStep && span / $0 <= 5 } ?? (span / 5 / 86_400 + 1) * 86_400
        let days = step % 86_400 == 0
        let first = days ? start.floorDivided(by: 86_400) * 86_400 : start.floorDivided(by: step) * step
        var ticks: [Tick] = []
        var t = first
        while true {
            let time = Timestamp(seconds: t).description
            let hour = String(time.dropFirst(11).prefix(5))
            let label = t % 86_400 == 0 ? monthDay(time) : ticks.isEmpty ? "\(monthDay(time)) \(hour)" : hour
            ticks.append(Tick(value: Double(t), label: label))
            if t >= end { break }
            t += step
        }
        if ticks.count > 4 {
            // Every other tick, keeping midnights (an even multiple of any step under a day) and
            // the first, which names its day.
            for i in ticks.indices { ticks[i].minor = (days ? i : Int(Int64(ticks[i].value) / step)) % 2 != 0 }
            if ticks[0].minor {
                ticks[0].minor = false
                ticks[1].minor = true
            }
        }
        return (ticks, Double(first)...Double(t))
    }

    /// `2026-11-28T…` as `Nov 28`.
    static func monthDay(_ iso: String) -> String {
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        let parts = iso.prefix(10).split(separator: "-").compactMap { Int($0) }
        guard parts.count == 3, (1...12).contains(parts[1]) else { return String(iso.prefix(10)) }
        return "\(months[parts[1] - 1]) \(parts[2])"
    }

    /// The x ticks of a chart of days (at least a day apart), and the days they span.
    static func dayTicks(_ series: [Day]) -> ([Tick], ClosedRange<Double>) {
        dayTicks(from: series.first!.day, to: series.last!.day)
    }

    /// The x ticks of a chart of the days `first` to `last` (days since 1970-01-01; at least a day
    /// apart), and the days they span.
    static func dayTicks(from first: Int, to last: Int) -> ([Tick], ClosedRange<Double>) {
        let (first, last) = (Int64(first), Int64(max(last, first + 1)))
        let (ticks, range) = timeTicks(first * 86_400, last * 86_400, minimumStep: 86_400)
        return (
            ticks.map { Tick(value: $0.value / 86_400, label: $0.label, minor: $0.minor) },
            range.lowerBound / 86_400...range.upperBound / 86_400
        )
    }

    // MARK: numbers

    static func coordinate(_ v: Double) -> String { String(format: "%.2f", v) }

    static func points(_ values: [(Double, Double)], _ plot: Plot) -> String {
        values.map { String(format: "%.2f,%.2f", plot.x($0.0), plot.y($0.1)) }.joined(separator: " ")
    }

    static func percent(_ v: Double) -> String {
        String(format: abs(v) < 0.001 && v != 0 ? "%.3f%%" : "%.2f%%", v * 100)
    }

    /// A count with its digits grouped in threes: `1,234,567`.
    static func grouped(_ n: Int) -> String {
        let digits = String(n.magnitude)
        var out = ""
        for (i, c) in digits.enumerated() {
            if i > 0 && (digits.count - i) % 3 == 0 { out += "," }
            out.append(c)
        }
        return (n < 0 ? "-" : "") + out
    }
}

extension Int64 {
    /// Division rounding towards minus infinity.
    fileprivate func floorDivided(by d: Int64) -> Int64 {
        let q = self / d
        return (self % d != 0 && (self < 0) != (d < 0)) ? q - 1 : q
    }
}
