import Foundation
import RolloutModel

/// The report's inline SVG charts (docs/report.md): each is a function of the values it draws.
enum ReportCharts {
    typealias Day = ReportContent.Day

    static let width = 760.0, height = 220.0, left = 64.0, right = 16.0, top = 16.0, bottom = 36.0
    static let namespace = "http://www.w3.org/2000/svg"

    /// Maps values to the drawing area.
    struct Plot {
        let xs: ClosedRange<Double>
        let ys: ClosedRange<Double>
        func x(_ v: Double) -> Double {
            left + (v - xs.lowerBound) / max(1e-12, xs.upperBound - xs.lowerBound) * (width - left - right)
        }
        func y(_ v: Double) -> Double {
            height - bottom - (v - ys.lowerBound) / max(1e-12, ys.upperBound - ys.lowerBound) * (height - top - bottom)
        }
    }

    /// How a chart labels its axes.
    struct Axes {
        let y: (Double) -> String
        let x: (Double) -> String
        let xTicks: [Double]
    }

    // MARK: charts

    /// A strip with one dot per change, or nil without changes.
    static func timeline(_ changes: [ReportContent.Change]) -> Markup? {
        guard let first = changes.first, let last = changes.last else { return nil }
        let start = Double(first.time.seconds)
        let end = Double(max(last.time.seconds, first.time.seconds + 3600))
        let plot = Plot(xs: start...end, ys: 0...1)
        var marks = [
            Markup.empty("line", ["class": "axis", "x1": "\(left)", "y1": "35", "x2": "\(width - right)", "y2": "35"])
        ]
        for change in changes {
            marks.append(
                .element(
                    "circle",
                    [
                        "class": "event action-\(change.action)", "cx": coordinate(plot.x(Double(change.time.seconds))),
                        "cy": "35", "r": "6",
                    ],
                    .element("title", "\(change.time) \(change.summary)")))
        }
        marks.append(.element("text", ["class": "tick", "x": "\(left)", "y": "62"], "\(first.time)"))
        marks.append(
            .element(
                "text", ["class": "tick", "x": "\(width - right)", "y": "62", "text-anchor": "end"], "\(last.time)"))
        return svg(
            [
                "xmlns": namespace, "class": "chart timeline-chart", "id": "timeline-chart",
                "viewBox": "0 0 \(Int(width)) 70", "role": "img", "aria-label": "timeline",
            ],
            title: "Changes to this locale over time", marks)
    }

    /// For each targeted segment (the regions and versions of a rule), the share the staged pack had
    /// after each change, as steps: a revert drops it to zero. Nil when no change staged anything.
    static func shares(_ changes: [ReportContent.Change]) -> Markup? {
        var series: [String: [(time: Double, percent: Double)]] = [:]
        var times: [Double] = []
        for change in changes {
            guard let shares = change.shares else { continue }
            let t = Double(change.time.seconds)
            times.append(t)
            for share in shares { series[share.segment, default: []].append((t, share.percent)) }
            let seen = Set(shares.map(\.segment))
            for segment in series.keys where !seen.contains(segment) { series[segment]!.append((t, 0)) }
        }
        guard !series.isEmpty, let first = times.first, let last = times.last else { return nil }
        let end = max(last, first + 3600)
        let plot = Plot(xs: first...end, ys: 0...100)
        var marks: [Markup] = []
        for (index, segment) in series.keys.sorted().enumerated() {
            var steps: [(Double, Double)] = []
            for (i, point) in series[segment]!.enumerated() {
                if i > 0 { steps.append((point.time, steps.last!.1)) }
                steps.append(point)
            }
            steps.append((end, steps.last!.1))
            marks.append(
                .empty("polyline", ["class": "series share share-\(index % 4)", "points": points(steps, plot)]))
            marks.append(
                .element(
                    "text",
                    [
                        "class": "legend share-\(index % 4)", "x": "\(left + 8)",
                        "y": "\(top + 12 + Double(index) * 16)",
                    ], Markup(segment)))
        }
        let time = { (t: Double) in
            Timestamp(seconds: Int64(t)).description.replacingOccurrences(of: "T", with: " ").prefix(16).description
        }
        return chart(
            "shares", title: "share of devices on the staged pack per segment", plot,
            Axes(y: { "\(Int($0))%" }, x: time, xTicks: [first, end]), marks)
    }

    /// Each arm's rate per day.
    static func rates(_ kind: MetricKind, series: [Day], candidate: String, baseline: String) -> Markup {
        let days = dayRange(series)
        let rates: [Double] = series.flatMap { day -> [Double] in [day.candidate.rate ?? 0, day.baseline.rate ?? 0] }
        let plot = Plot(xs: days, ys: 0...max(1e-6, (rates.max() ?? 0) * 1.15))
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
            let cx = coordinate(plot.x(Double(day.day)))
            let cy = coordinate(plot.y(day.candidate.rate ?? 0))
            marks.append(.empty("circle", ["class": "dot candidate", "cx": cx, "cy": cy, "r": "3"]))
        }
        marks.append(
            .element(
                "text", ["class": "legend candidate", "x": "\(left + 8)", "y": "\(top + 12)"],
                "\(candidate) (candidate)"))
        marks.append(
            .element(
                "text", ["class": "legend baseline", "x": "\(left + 8)", "y": "\(top + 28)"], "\(baseline) (baseline)"))
        return chart(
            "rates-\(kind.rawValue)", title: "\(kind.rawValue) rate per day: \(candidate) and \(baseline)", plot,
            Axes(y: percent, x: date, xTicks: dayTicks(days)), marks)
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
        let days = dayRange(series)
        let values: [Double] = rows.flatMap { row -> [Double] in [row.lower, row.upper, row.tolerance] } + [0]
        let span = max(1e-6, (values.max() ?? 0) - (values.min() ?? 0))
        let plot = Plot(xs: days, ys: ((values.min() ?? 0) - span * 0.1)...((values.max() ?? 0) + span * 0.1))
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
        marks.append(
            .empty("line", ["class": "zero", "x1": "\(left)", "y1": zero, "x2": "\(width - right)", "y2": zero]))
        let gateLabel = rows.last.map { percent($0.tolerance) } ?? "-"
        marks.append(
            .element(
                "text", ["class": "legend gate", "x": "\(left + 8)", "y": "\(top + 12)"],
                "gate: +\(gateLabel) (unhealthy when the whole band is above it)"))
        marks.append(
            .element(
                "text", ["class": "legend band", "x": "\(left + 8)", "y": "\(top + 28)"],
                "\(String(format: "%.1f", (1 - alpha) * 100))% confidence band, valid at every look"))
        return chart(
            "difference-\(kind.rawValue)",
            title: "\(kind.rawValue) rate, candidate minus baseline, cumulative, with its confidence band and the gate",
            plot, Axes(y: { (v: Double) in (v >= 0 ? "+" : "") + percent(v) }, x: date, xTicks: dayTicks(days)), marks)
    }

    // MARK: frame

    /// An SVG element: its title, then one line per mark.
    static func svg(_ attributes: Markup.Attributes, title: String, _ marks: [Markup]) -> Markup {
        .element("svg", attributes, .element("title", Markup(title)), .newline, .lines(marks))
    }

    /// A chart with axes, a grid of five lines with their labels and the x ticks, under `marks`.
    static func chart(_ id: String, title: String, _ plot: Plot, _ axes: Axes, _ marks: [Markup]) -> Markup {
        var frame = [
            Markup.empty(
                "line",
                [
                    "class": "axis", "x1": "\(left)", "y1": "\(height - bottom)", "x2": "\(width - right)",
                    "y2": "\(height - bottom)",
                ]),
            Markup.empty(
                "line", ["class": "axis", "x1": "\(left)", "y1": "\(top)", "x2": "\(left)", "y2": "\(height - bottom)"]),
        ]
        for i in 0...4 {
            let v = plot.ys.lowerBound + Double(i) / 4 * (plot.ys.upperBound - plot.ys.lowerBound)
            let y = coordinate(plot.y(v))
            frame.append(
                Markup([
                    .empty("line", ["class": "grid", "x1": "\(left)", "y1": y, "x2": "\(width - right)", "y2": y]),
                    .element(
                        "text",
                        ["class": "tick", "x": "\(left - 6)", "y": coordinate(plot.y(v) + 4), "text-anchor": "end"],
                        Markup(axes.y(v))),
                ]))
        }
        for (index, v) in axes.xTicks.enumerated() {
            let anchor = index == 0 ? "start" : index == axes.xTicks.count - 1 ? "end" : "middle"
            frame.append(
                .element(
                    "text",
                    [
                        "class": "tick", "x": coordinate(plot.x(v)), "y": "\(height - bottom + 16)",
                        "text-anchor": anchor,
                    ], Markup(axes.x(v))))
        }
        return svg(
            [
                "xmlns": namespace, "class": "chart", "id": id, "viewBox": "0 0 \(Int(width)) \(Int(height))",
                "role": "img", "aria-label": title,
            ],
            title: title, frame + marks)
    }

    // MARK: numbers

    static func coordinate(_ v: Double) -> String { String(format: "%.1f", v) }

    static func points(_ values: [(Double, Double)], _ plot: Plot) -> String {
        values.map { String(format: "%.1f,%.1f", plot.x($0.0), plot.y($0.1)) }.joined(separator: " ")
    }

    static func date(_ day: Double) -> String { String(Timestamp(seconds: Int64(day) * 86_400).description.prefix(10)) }

    /// The days a series spans, at least two.
    static func dayRange(_ series: [Day]) -> ClosedRange<Double> {
        Double(series.first!.day)...Double(max(series.last!.day, series.first!.day + 1))
    }

    static func dayTicks(_ days: ClosedRange<Double>) -> [Double] {
        let span = max(1, days.upperBound - days.lowerBound)
        let step = max(1, (span / 5).rounded(.up))
        return stride(from: days.lowerBound, through: days.upperBound, by: step).map { $0 }
    }

    static func percent(_ v: Double) -> String {
        String(format: abs(v) < 0.001 && v != 0 ? "%.3f%%" : "%.2f%%", v * 100)
    }
}
