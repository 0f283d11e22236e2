/* serialbench's site: lays out one page from the JSON the page carries (serialbench/views/site/).

Every string from a result file is written with textContent (el() below), never as markup, and goes to
plotly.js only through plotText(), because plotly reads a subset of HTML in its trace names, hover and
annotation text. The view (input, direction, implementations, benchmark, step) lives in the URL hash, so
a copied link reproduces it; a change of the hash (a pasted link, the back button) draws the view again. */
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("page-data").textContent);
  const MAIN = document.getElementById("main");
  const COLOUR = {"slower": "#d62728", "faster": "#2ca02c", "no change": "#7f7f7f",
                  "too noisy to tell": "#ff7f0e", "two speeds": "#9467bd", "at the threshold": "#8c564b"};
  const CONFIG = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"]};
  // A sweep's or bisection's sides when they are commits of a library's repository (pages.py commit_rows).
  const COMMITS = new Map((DATA.commits || []).map(c => [c.label, c]));

  // -- text, numbers ------------------------------------------------------------------------------
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === "dataset") Object.assign(node.dataset, value);
      else if (key === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
      else node[key] = value;  // className, id, href, title...: properties, never HTML
    }
    for (const child of children.flat()) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function plotText(text) {  // for plotly: its pseudo-HTML turned back into the characters it stands for
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  function three(value) {
    value = Number(value.toPrecision(3));
    return value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2);
  }

  function fmtTime(seconds) {
    if (seconds === null || seconds === undefined) return "-";
    if (seconds <= 0) return "0";
    seconds = Number(seconds.toPrecision(3));
    for (const [unit, scale] of [["s", 1], ["ms", 1e-3], ["us", 1e-6]]) {
      if (seconds >= scale) return `${three(seconds / scale)} ${unit}`;
    }
    return `${three(seconds / 1e-9)} ns`;
  }

  function significant3(value) {  // Python's float(f"{value:.3g}"): a tie goes to the even digit
    if (!value) return value;
    const size = Math.abs(value), shift = Math.floor(Math.log10(size)) - 2;
    const scaled = shift >= 0 ? size / 10 ** shift : size * 10 ** -shift;
    let whole = Math.floor(scaled);
    const rest = scaled - whole;
    if (rest > 0.5 || (rest === 0.5 && whole % 2 === 1)) whole += 1;
    return Math.sign(value) * (shift >= 0 ? whole * 10 ** shift : whole / 10 ** -shift);
  }

  function fmtBytes(count) {  // core/formatting.py format_bytes (tests/test_site_numbers.py)
    if (count === null || count === undefined) return "-";
    count = significant3(count);
    for (const [unit, scale] of [["GB", 1e9], ["MB", 1e6], ["KB", 1e3]]) {
      if (count >= scale) return `${three(count / scale)} ${unit}`;
    }
    return `${Math.trunc(count)} B`;
  }

  function fmtChange(fraction) {
    if (fraction === null || fraction === undefined) return "-";
    if (fraction <= -1) return "-100%";
    return (fraction >= 0 ? "+" : "") + (fraction * 100).toFixed(1) + "%";
  }

  function fmtInterval(low, high) {
    return low === null || high === null ? "[no interval]" : `[${fmtChange(low)}, ${fmtChange(high)}]`;
  }

  function fmtRatio(ratio) {
    if (ratio === null || ratio === undefined) return "-";
    if (ratio < 0.01) return "<0.01x";
    return ratio >= 10 ? `${Math.round(ratio).toLocaleString("en")}x` : `${ratio.toFixed(ratio >= 1 ? 1 : 2)}x`;
  }

  // -- the view in the hash -----------------------------------------------------------------------
  function readHash() {
    const params = new URLSearchParams(location.hash.slice(1));
    const state = {};
    for (const [key, value] of params) state[key] = value;
    return state;
  }

  function writeHash(state) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(state)) if (value !== undefined && value !== null) params.set(key, value);
    const hash = "#" + params.toString();
    if (hash !== location.hash) history.replaceState(null, "", hash);
  }

  // -- shared pieces ------------------------------------------------------------------------------
  function section(title, ...children) {
    return el("section", {}, el("h2", {}, title), ...children);
  }

  function gridTable(table) {  // a views/table.py Table (its data()): texts as the terminal prints them
    const labelled = table.corner !== null;
    const head = el("tr", {}, labelled ? el("th", {}, table.corner) : "", table.columns.map(c => el("th", {}, c)));
    const body = table.rows.map(row => el("tr", {className: row.start ? "group-start" : ""},
      labelled ? el("th", {scope: "row"}, row.label) : "",
      row.cells.map(cell => el("td", {className: cell && cell.mark === "*" ? "marked" : ""},
        cell ? cell.lines.map((line, i) => el("div", {className: i ? "minor" : ""},
                                              !i && cell.mark === "=" ? "= " + line : line)) : "-"))));
    return el("figure", {className: "grid"},
      el("figcaption", {}, el("strong", {}, table.title), el("p", {className: "legend"}, table.legend)),
      el("table", {}, el("thead", {}, head), el("tbody", {}, body)),
      table.notes.map(note => el("p", {className: "note"}, note)));
  }

  function plainTable(headers, rows, props) {
    return el("table", props || {}, el("thead", {}, el("tr", {}, headers.map(h => el("th", {}, h)))),
      el("tbody", {}, rows));
  }

  function commitNote(label) {  // what a commit side is: its subject, date and files changed (their paths on hover)
    const c = COMMITS.get(label);
    if (!c) return "";
    return el("div", {className: "commit", title: c.files.join("\n"), dataset: {label}},
      `${c.label} (${c.date}): ${c.subject}; ${c.files.length} file${c.files.length === 1 ? "" : "s"} changed`);
  }

  function named(label) {  // a commit with its subject; a release (no commit) by its label alone
    const c = COMMITS.get(label);
    return c && c.subject ? `${label} (${c.subject})` : label;
  }

  function commitsTable() {
    return plainTable(["commit", "date", "subject", "files changed", "timed"], DATA.commits.map(c => el("tr",
      {dataset: {label: c.label}},
      el("th", {scope: "row", title: c.sha}, c.label), el("td", {}, c.date), el("td", {}, c.subject),
      el("td", {className: "number", title: c.files.join("\n")}, String(c.files.length)),
      el("td", {className: c.skipped === null ? "" : "uncertain"},
         c.skipped !== null ? `skipped: ${c.skipped}` : c.timed ? "timed" : "-"))), {id: "commits"});
  }

  function verdictCell(word) {
    return el("td", {className: "verdict", dataset: {verdict: word}}, word);
  }

  function draw(node, traces, layout, config) {
    Plotly.react(node, traces, Object.assign({margin: {l: 70, r: 20, t: 30, b: 60}, hovermode: "closest",
                                              font: {size: 12}}, layout), Object.assign({}, CONFIG, config));
  }

  // -- the index ----------------------------------------------------------------------------------
  function indexPage() {
    const rows = DATA.rows.map(row => el("tr", {dataset: {kind: row.kind}},
      el("td", {}, row.kind), el("td", {}, el("a", {href: row.href}, row.title)),
      el("td", {}, row.date || "-"), el("td", {}, row.commit || "-"), el("td", {}, row.libraries || "-"),
      el("td", {}, row.machine || "-"), el("td", {className: "number"}, String(row.count))));
    MAIN.append(el("p", {}, `${DATA.rows.length} results. A page per result: a run's times against tier, a ` +
                            "compare's verdicts, a sweep's releases, a bisection's sessions."),
                plainTable(["kind", "result", "date", "commit", "libraries that differ", "machine", "benchmarks"],
                           rows, {id: "results"}));
  }

  // -- a run --------------------------------------------------------------------------------------
  function runPage() {
    const views = DATA.views;
    const inputs = [...new Set(views.map(v => v.input))];
    const controls = el("div", {className: "controls"});
    const chart = el("div", {id: "chart", className: "chart"});
    const tip = el("p", {className: "hint"}, "Hover a point: median, the workers' spread, payload, B/op and " +
                   "allocs/op (with a memory file), and the median's interval. Click it to keep it here.");
    const focus = el("div", {id: "focus"});
    const tables = el("div", {id: "tables"});
    MAIN.append(el("ul", {className: "head"}, DATA.head.map(line => el("li", {}, line))), controls, chart, tip, focus,
                tables);
    const byName = new Map(DATA.benchmarks.map(b => [b.name, b]));

    function render() {
      const state = readHash();
      const input = inputs.includes(state.input) ? state.input : inputs[0];
      const directions = views.filter(v => v.input === input).map(v => v.direction);
      const direction = directions.includes(state.direction) ? state.direction : directions[0];
      const view = views.find(v => v.input === input && v.direction === direction);
      const present = [...new Set(DATA.benchmarks.filter(b => b.input === input && b.direction === direction
                                                            && b.row !== DATA.floor).map(b => b.row))];
      let chosen = state.impls === undefined ? view.fastest : state.impls.split(",").filter(r => present.includes(r));
      const focused = byName.get(state.benchmark);
      const benchmark = focused && focused.input === input && (focused.direction === direction ||
                                                               focused.row === DATA.floor) ? focused : null;
      writeHash({input, direction, impls: chosen.join(","), benchmark: benchmark ? benchmark.name : undefined});
      focus.replaceChildren(benchmark ? el("ul", {className: "focus"}, hoverLines(benchmark).map(line =>
        el("li", {}, line))) : "");

      controls.replaceChildren(
        el("label", {}, "input ", select("input", inputs, input, value => go({input: value, direction, impls: undefined}))),
        el("label", {}, "direction ", select("direction", directions, direction,
                                             value => go({input, direction: value, impls: undefined}))),
        el("button", {type: "button", id: "fastest", on: {click: () => go({input, direction, impls: undefined})}},
           "fastest of each format"),
        el("button", {type: "button", id: "all", on: {click: () => go({input, direction, impls: present.join(",")})}},
           "all"),
        el("button", {type: "button", id: "none", on: {click: () => go({input, direction, impls: ""})}}, "none"),
        el("div", {className: "impls", id: "impls"}, groupByFormat(present).map(([format, rows]) =>
          el("fieldset", {}, el("legend", {}, format), rows.map(row => el("label", {className: "impl"},
            el("input", {type: "checkbox", checked: chosen.includes(row), value: row, on: {change: event => {
              const next = event.target.checked ? [...chosen, row] : chosen.filter(r => r !== row);
              go({input, direction, impls: present.filter(r => next.includes(r)).join(",")});
            }}}), row.slice(format.length + 1)))))));

      const traces = [];
      const floor = series(DATA.floor, input, direction, true);
      if (floor) traces.push(Object.assign(floor, {name: plotText("memcpy floor (" + DATA.floor + ")"), meta: DATA.floor,
        line: {color: "black", width: 4}, marker: {symbol: "square", size: 6, color: "black"}}));
      for (const row of chosen) {
        const trace = series(row, input, direction, false);
        if (trace) traces.push(Object.assign(trace, {name: plotText(row), meta: row, mode: "lines+markers"}));
      }
      const tiers = Object.entries(DATA.tiers);
      const shown = tiers.filter(t => traces.some(trace => trace.x.includes(t[1])));
      if (shown.length === 1) {  // one tier: a line against tier would be one vertical strip of dots
        const bars = traces.map(trace => ({type: "bar", orientation: "h", x: trace.y, y: [trace.name],
          name: trace.name, meta: trace.meta, text: trace.text, textposition: "none",
          hovertemplate: trace.hovertemplate, customdata: trace.customdata,
          marker: trace.meta === DATA.floor ? {color: "black"} : {}}));
        draw(chart, bars, {
          title: {text: plotText(`${input}, ${direction}: median time per op at ${shown[0][0]}`)},
          xaxis: {type: "log", title: {text: "time per op"}, tickformat: ".3~s", ticksuffix: "s"},
          yaxis: {type: "category", autorange: "reversed", automargin: true},
          showlegend: false, height: Math.max(260, 90 + 36 * bars.length)});
      } else {
        draw(chart, traces, {
          title: {text: plotText(`${input}, ${direction}: median time per op against tier`)},
          xaxis: {type: "log", title: {text: "tier (elements per tensor; bytes for byte strings)"},
                  tickvals: tiers.map(t => t[1]), ticktext: tiers.map(t => t[0])},
          yaxis: {type: "log", title: {text: "time per op"}, dtick: 1, tickformat: ".3~s", ticksuffix: "s"},
          legend: {itemclick: false, itemdoubleclick: false}, height: 520});
      }

      tables.replaceChildren(
        section("Median time per op, and its multiple of the memcpy floor", view.timing.map(gridTable)),
        (DATA.roundtrip[input] || []).length ? section("The round trip", DATA.roundtrip[input].map(gridTable)) : "",
        view.costs.length ? section("Cost per request and per byte", view.costs.map(gridTable)) : "",
        view.memory.length ? section("Allocations and memory per op", view.memory.map(gridTable)) : "");
    }

    function series(row, input, direction, anyDirection) {
      const points = DATA.benchmarks.filter(b => b.row === row && b.input === input
                                                && (anyDirection || b.direction === direction))
        .sort((a, b) => DATA.tiers[a.tier] - DATA.tiers[b.tier]);
      if (!points.length) return null;
      return {type: "scatter", x: points.map(b => DATA.tiers[b.tier]), y: points.map(b => b.median),
              text: points.map(hover), hovertemplate: "%{text}<extra></extra>", customdata: points.map(b => b.name)};
    }

    function hover(b) {
      return hoverLines(b).map(plotText).join("<br>");
    }

    function hoverLines(b) {
      const workers = b.workers.filter(w => w !== null);
      const lines = [b.name, `median ${fmtTime(b.median)}` + (b.copies === false ? ", no copy"
                                                  : b.floor_multiple ? `, ${fmtRatio(b.floor_multiple)} the floor` : ""),
        workers.length > 1 ? `workers' medians ${fmtTime(Math.min(...workers))} to ${fmtTime(Math.max(...workers))} ` +
                             `(${workers.length} workers)` : `${workers.length} worker`,
        `payload ${fmtBytes(b.payload_bytes)} (input ${fmtBytes(b.input_bytes)})`];
      if (b.bytes_per_op !== undefined) lines.push(`${fmtBytes(b.bytes_per_op)}/op, ${Math.round(b.allocs_per_op)} allocs/op`);
      lines.push(b.precision);
      return lines;
    }

    function go(state) { writeHash(state); render(); }
    window.addEventListener("hashchange", render);
    render();
    chart.on("plotly_click", event => {
      const point = event.points[0];
      if (point) go(Object.assign(readHash(), {benchmark: point.customdata}));
    });
  }

  function select(id, options, value, onChange) {
    return el("select", {id, on: {change: event => onChange(event.target.value)}},
      options.map(option => el("option", {value: option, selected: option === value}, option)));
  }

  function groupByFormat(rows) {
    const groups = new Map();
    for (const row of rows) {
      const format = row.split("/")[0];
      if (!groups.has(format)) groups.set(format, []);
      groups.get(format).push(row);
    }
    return [...groups];
  }

  // -- a compare ----------------------------------------------------------------------------------
  function sideCard(side) {
    const differ = Object.entries(side.differ).map(([name, version]) => `${name} ${version}`).join(", ");
    return el("div", {className: "side", dataset: {role: side.role}},
      el("h3", {}, side.role + (side.side ? ": " + side.side : "")),
      el("dl", {},
        el("dt", {}, "installed for this side"), el("dd", {}, side.specs || "-"),
        el("dt", {}, "libraries that differ"), el("dd", {className: "differ"}, differ || "none"),
        el("dt", {}, "Python"), el("dd", {}, side.python),
        el("dt", {}, "CPU"), el("dd", {}, side.cpu),
        el("dt", {}, "date"), el("dd", {}, side.date || "-"),
        el("dt", {}, "commit"), el("dd", {}, side.commits.join(", ") || "-"),
        el("dt", {}, "file"), el("dd", {}, side.path)));
  }

  function comparePage() {
    const theta = DATA.min_effect;
    const forest = el("div", {id: "forest", className: "chart"});
    const detail = el("div", {id: "detail"});
    const body = el("tbody", {});
    const rowsTable = el("table", {id: "verdicts"}, el("thead", {}, el("tr", {},
      ["benchmark", "BASE", "HEAD", "change [interval]", "level", "detectable", "rounds", "verdict"].map(h => el("th", {}, h)))),
      body);
    MAIN.append(section("The sides, as they ran", el("div", {className: "sides"}, DATA.sides.map(sideCard))),
      section("Verdicts", el("p", {className: "legend"}, `${DATA.paired ? "Paired round by round (one session)" :
        "Unpaired (two independent runs)"}; minimum effect ${(theta * 100).toFixed(0)}%. A row's verdict: ` +
        "slower or faster when the estimate reaches the minimum effect and the whole interval lies beyond half of it; " +
        "no change when the interval lies within it; at the threshold when the interval, narrower than the " +
        "minimum effect, holds it; too noisy to tell otherwise. Click a row for its rounds."),
        rowsTable, detail),
      section("Forest plot", el("p", {className: "legend"}, "Each row's change and its interval, against " +
        `±${(theta * 100).toFixed(0)}% (dashed), coloured by verdict.`), forest));

    function render() {
      const state = readHash();
      const chosen = DATA.rows.find(r => r.name === state.benchmark);
      writeHash({benchmark: chosen ? chosen.name : undefined});
      body.replaceChildren(...DATA.rows.map(row => verdictRow(row, row.name, row === chosen)),
        DATA.selection ? verdictRow(Object.assign({base: null, head: null}, DATA.selection), "selection", false) : "");
      detail.replaceChildren(chosen ? roundsView(chosen, theta) : "");
    }

    function verdictRow(row, label, selected) {
      return el("tr", {className: (selected ? "selected " : "") + (label === "selection" ? "selection" : ""),
                       dataset: {name: label}, on: {click: () => { if (label !== "selection") go(label); }}},
        el("th", {scope: "row"}, label), el("td", {className: "number"}, fmtTime(row.base)),
        el("td", {className: "number"}, fmtTime(row.head)),
        el("td", {className: "number interval"}, `${fmtChange(row.change)} ${fmtInterval(row.low, row.high)}`),
        el("td", {className: "number"}, row.level === null ? "-" : `${(row.level * 100).toFixed(1)}%`),
        el("td", {className: "number"}, row.detectable === null ? "-" : `${(row.detectable * 100).toFixed(1)}%`),
        el("td", {className: "number"}, String(row.rounds)), verdictCell(row.verdict));
    }

    function go(name) { writeHash({benchmark: name}); render(); }
    window.addEventListener("hashchange", render);
    render();
    drawForest(forest, DATA.rows.concat(DATA.selection ? [Object.assign({name: "selection"}, DATA.selection)] : []),
               theta);
  }

  function drawForest(node, rows, theta) {
    const names = rows.map(r => r.name);
    const traces = Object.keys(COLOUR).map(word => {
      const mine = rows.filter(r => r.verdict === word && r.change !== null);
      return {type: "scatter", mode: "markers", name: plotText(word), meta: word,
              x: mine.map(r => r.change * 100), y: mine.map(r => plotText(r.name)), customdata: mine.map(r => r.name),
              marker: {color: COLOUR[word], size: 9},
              error_x: {type: "data", symmetric: false, color: COLOUR[word], thickness: 2,
                        array: mine.map(r => r.high === null ? 0 : (r.high - r.change) * 100),
                        arrayminus: mine.map(r => r.low === null ? 0 : (r.change - r.low) * 100)},
              text: mine.map(r => [r.name, `${r.verdict}: ${fmtChange(r.change)} ${fmtInterval(r.low, r.high)}`,
                                   `${r.rounds} rounds`].map(plotText).join("<br>")),
              hovertemplate: "%{text}<extra></extra>"};
    }).filter(t => t.x.length);
    const line = (x, dash) => ({type: "line", xref: "x", yref: "paper", x0: x, x1: x, y0: 0, y1: 1,
                                line: {color: dash ? "#888" : "#444", width: 1, dash: dash ? "dash" : "solid"}});
    draw(node, traces, {
      xaxis: {title: {text: "change, HEAD against BASE (%)"}, zeroline: false, ticksuffix: "%"},
      yaxis: {type: "category", categoryorder: "array", categoryarray: names.map(plotText).reverse(), automargin: true},
      shapes: [line(0, false), line(-theta * 100, true), line(theta * 100, true)],
      height: 120 + 26 * names.length, margin: {l: 20, r: 20, t: 20, b: 60}});
  }

  function roundsView(row, theta) {
    const chart = el("div", {className: "chart small", id: "rounds"});
    const view = el("div", {className: "rounds"}, el("h3", {}, row.name),
      el("p", {}, `${row.verdict}: ${fmtChange(row.change)} ${fmtInterval(row.low, row.high)}, ${row.rounds} rounds. ` +
                  "Each round's estimate (the median of its pairs' HEAD/BASE):"), chart);
    const rounds = row.round_changes || [];
    requestAnimationFrame(() => draw(chart, [{type: "scatter", mode: "markers", x: rounds.map((_, i) => i + 1),
      y: rounds.map(c => c * 100), marker: {color: COLOUR[row.verdict] || "#333"}, name: "round",
      hovertemplate: "round %{x}: %{y:.2f}%<extra></extra>"}], {
      xaxis: {title: {text: "round"}, dtick: rounds.length > 20 ? 4 : 1},
      yaxis: {title: {text: "change (%)"}, ticksuffix: "%"}, height: 260, showlegend: false,
      shapes: [-theta * 100, theta * 100].map(y => ({type: "line", xref: "paper", x0: 0, x1: 1, y0: y, y1: y,
                                                     line: {color: "#888", dash: "dash", width: 1}}))}));
    return view;
  }

  // -- a sweep ------------------------------------------------------------------------------------
  function sweepPage() {
    const sides = DATA.sides;
    const charts = el("div", {id: "charts", className: "panels"});
    const grid = el("div", {id: "grid"});
    const detail = el("div", {id: "step"});
    const machines = Object.entries(DATA.machines).map(([side, m]) =>
      `${side}: ${m.host || "?"}, ${m.cpu || "?"}, ${m.cpus || "?"} CPUs, Python ${m.python || "?"}`);
    // A sweep of commits says "commit" where a sweep of releases says "release", and names its commits.
    const noun = COMMITS.size ? "commit" : "release";
    const leftOut = Object.entries(DATA.left_out).map(([side, why]) => `${named(side)}: ${why}`);
    const panels = DATA.benchmarks.map((bench, index) => {
      const node = el("div", {className: "chart panel", id: `panel-${index}`, dataset: {name: bench.name}});
      charts.append(node);
      return node;
    });
    const what = DATA.history || DATA.library;
    MAIN.append(el("p", {}, `${what ? what + ": " : ""}${sides.length} ${noun}s, ` +
                            `${DATA.benchmarks.length} benchmarks, anchor ${DATA.anchor}, minimum effect ` +
                            `${(DATA.min_effect * 100).toFixed(0)}%` + (DATA.date ? `; ${DATA.date}` : "")),
      section(`Benchmark by ${noun}`, el("p", {className: "legend"}, "Each cell: the change against the " +
        `anchor (${DATA.anchor}), coloured by it; a step (the verdict from the ${noun} before is slower or ` +
        "faster) is outlined and starred. Click a cell, or a point of a chart, for its step."), grid, detail),
      section(`Time against ${noun}`, el("p", {className: "legend"}, "Per benchmark: a point is the anchor's " +
        "median times (1 + the change against the anchor), its bar the 95% interval of that change; a step is " +
        `shaded between the two ${noun}s, red slower, green faster, with its change.`), charts),
      section("The whole selection, step by step", selectionTable()),
      COMMITS.size ? section("Commits", commitsTable()) : "",
      leftOut.length ? section(COMMITS.size ? "Skipped" : "Left out", el("ul", {}, leftOut.map(t => el("li", {}, t))))
        : "",
      section("Where each side was timed", el("ul", {}, machines.map(t => el("li", {}, t)))));

    function render() {
      const state = readHash();
      const bench = DATA.benchmarks.find(b => b.name === state.benchmark) || DATA.benchmarks[0];
      const step = bench.steps.find(s => s.to === state.step);
      writeHash({benchmark: bench.name, step: step ? step.to : undefined});
      grid.replaceChildren(gridOf(bench, step));
      panels.forEach(node => node.classList.toggle("selected", node.dataset.name === bench.name));
      detail.replaceChildren(step ? stepView(bench, step) : el("p", {className: "hint"},
        "Select a step (a cell of the grid, or a point of a chart) for its verdict, interval and rounds."));
    }

    function gridOf(chosen, chosenStep) {
      const rows = DATA.benchmarks.map(bench => el("tr", {className: bench === chosen ? "selected" : "",
                                                          dataset: {name: bench.name}},
        el("th", {scope: "row", on: {click: () => go(bench.name)}}, bench.name),
        sides.map((side, k) => {
          const median = bench.medians[k];
          const against = bench.from_anchor.find(s => s.to === side);
          const step = bench.steps.find(s => s.to === side);
          if (!against) return el("td", {className: "number anchor"}, median === null ? "-" : fmtTime(median));
          const changed = step && (step.verdict === "slower" || step.verdict === "faster");
          return el("td", {className: "number cell" + (changed ? " step " + step.verdict.replace(/ /g, "-") : "") +
                                       (bench === chosen && step === chosenStep ? " chosen" : ""),
                           style: `background-color: ${shade(against.change)}`,
                           dataset: {side, verdict: step ? step.verdict : ""}, title: step ?
                             `${step.from} -> ${step.to}: ${step.verdict}, ${fmtChange(step.change)}` : "",
                           on: {click: () => go(bench.name, side)}},
            fmtChange(against.change) + (changed ? " *" : ""));
        })));
      return plainTable(["benchmark", ...sides], rows, {id: "releases"});
    }

    function go(name, step) { writeHash({benchmark: name, step}); render(); }
    window.addEventListener("hashchange", render);
    render();
    DATA.benchmarks.forEach((bench, index) => {
      drawSweep(panels[index], bench);
      panels[index].on("plotly_click", event => {
        const point = event.points[0];
        if (point) go(bench.name, bench.steps.some(s => s.to === point.x) ? point.x : undefined);
      });
    });
  }

  function shade(change) {  // red for more time, green for less, full at +-50%
    if (change === null || change === undefined) return "transparent";
    const strength = Math.min(Math.abs(change) / 0.5, 1) * 0.75;
    return change > 0 ? `rgba(214, 39, 40, ${strength})` : `rgba(44, 160, 44, ${strength})`;
  }

  function drawSweep(node, bench) {
    const first = bench.medians.findIndex(m => m !== null);  // the anchor, or the first side that ran it
    const base = bench.medians[first], baseSide = DATA.sides[first];
    const xs = [baseSide], ys = [base], plus = [0], minus = [0];
    const text = [`${baseSide}: ${fmtTime(base)} (${first === 0 ? "the anchor" : "the first side that ran it"})`];
    for (const step of bench.from_anchor) {
      const y = base * (1 + step.change);
      xs.push(step.to); ys.push(y);
      plus.push(step.high === null ? 0 : base * (1 + step.high) - y);
      minus.push(step.low === null ? 0 : y - base * (1 + step.low));
      text.push(`${step.to}: ${fmtTime(y)}, ${fmtChange(step.change)} ${fmtInterval(step.low, step.high)} against ` +
                `${step.from}`);
    }
    // A step's shading and change sit at its sides' positions on the category axis, not at their labels:
    // plotly reads a label that looks like a number (a release 3.0, a commit 12345678) as a position.
    const at = side => DATA.sides.indexOf(side);
    const shapes = [], annotations = [];
    for (const step of bench.steps) {
      if (step.verdict !== "slower" && step.verdict !== "faster") continue;
      shapes.push({type: "rect", xref: "x", yref: "paper", x0: at(step.from), x1: at(step.to), y0: 0,
                   y1: 1, layer: "below", fillcolor: COLOUR[step.verdict], opacity: 0.15, line: {width: 0}});
      annotations.push({xref: "x", yref: "paper", x: at(step.to), y: 1, yanchor: "bottom", showarrow: false,
                        text: plotText(fmtChange(step.change)), font: {color: COLOUR[step.verdict], size: 11}});
    }
    draw(node, [{type: "scatter", mode: "lines+markers", x: xs.map(plotText), y: ys, meta: bench.name,
                 name: plotText(bench.name), error_y: {type: "data", symmetric: false, array: plus, arrayminus: minus},
                 text: text.map(plotText), hovertemplate: "%{text}<extra></extra>", line: {color: "#1f77b4"}}], {
      title: {text: plotText(bench.name), font: {size: 12}, x: 0.02, xanchor: "left"}, showlegend: false,
      height: 300, shapes, annotations, margin: {l: 60, r: 10, t: 44, b: 60},
      xaxis: {type: "category", categoryorder: "array", categoryarray: DATA.sides.map(plotText), tickangle: -45},
      yaxis: {tickformat: ".3~s", ticksuffix: "s", rangemode: "tozero"}}, {displayModeBar: false});
  }

  function stepView(bench, step) {
    const rounds = DATA.rounds[`${bench.name} ${step.from} ${step.to}`] || [];
    const view = el("div", {className: "step-detail"},
      el("h3", {}, `${bench.name}: ${step.from} -> ${step.to}`), commitNote(step.to),
      el("p", {}, el("span", {className: "verdict", dataset: {verdict: step.verdict}}, step.verdict),
        `: ${fmtChange(step.change)} ${fmtInterval(step.low, step.high)} (95%), ${step.rounds} rounds`),
      rounds.length ? el("div", {className: "chart small", id: "rounds"}) :
        el("p", {className: "hint"}, "The side files of this session are not in the site: no rounds to show."));
    if (rounds.length) {
      view.append(el("p", {className: "legend"}, `Each round's estimate (the median of its pairs' ${step.to}/` +
        `${step.from}); in colour the ${Math.min(step.rounds, rounds.length)} rounds of the verdict, in grey the ` +
        "rounds the session went on to take for other benchmarks."));
      requestAnimationFrame(() => roundsChart(view.querySelector("#rounds"), rounds, step.verdict, step.rounds));
    }
    return view;
  }

  function roundsChart(node, rounds, verdict, judged) {
    const theta = DATA.min_effect * 100;
    draw(node, [{type: "scatter", mode: "markers", x: rounds.map((_, i) => i + 1), y: rounds.map(c => c * 100),
                 marker: {color: rounds.map((_, i) => i < judged ? COLOUR[verdict] || "#333" : "#bbb")},
                 hovertemplate: "round %{x}: %{y:.2f}%<extra></extra>"}], {
      xaxis: {title: {text: "round"}}, yaxis: {title: {text: "change (%)"}, ticksuffix: "%"}, height: 260,
      showlegend: false, shapes: [-theta, theta].map(y => ({type: "line", xref: "paper", x0: 0, x1: 1, y0: y, y1: y,
                                                            line: {color: "#888", dash: "dash", width: 1}}))});
  }

  function selectionTable() {
    return plainTable(["step", "change [interval]", "rounds", "benchmarks", "verdict"],
      DATA.selection.map(s => el("tr", {}, el("th", {scope: "row"}, `${s.from} -> ${s.to}`),
        el("td", {className: "number"}, `${fmtChange(s.change)} ${fmtInterval(s.low, s.high)}`),
        el("td", {className: "number"}, String(s.rounds)),
        el("td", {className: "number"}, String(s.benchmarks || (s.names || []).length || "-")),
        verdictCell(s.verdict))),
      {id: "selection"});
  }

  // -- a bisection --------------------------------------------------------------------------------
  function bisectPage() {
    const versions = DATA.versions;
    // Every step found (a file written before bisect looked for every step has the first one only).
    const steps = DATA.steps || (DATA.changed_at ? [{from: DATA.previous, to: DATA.changed_at, verdict: DATA.verdict,
                                                     change: DATA.change, low: DATA.low, high: DATA.high}] : []);
    const stepText = s => `changed at ${s.to} (after ${s.from}): ${s.verdict}, ${fmtChange(s.change)} ` +
      fmtInterval(s.low, s.high) + (typeof s.share === "number" ? `, ${Math.round(s.share * 100)}% of the whole change` : "");
    const noun = COMMITS.size ? "commit" : "release";
    const skipped = (DATA.commits || []).filter(c => c.skipped !== null);  // tried, and could not be used
    const answer = steps.length === 1 ? `${DATA.benchmark}: ${stepText(steps[0])}` :
      steps.length ? `${DATA.benchmark}: ${steps.length} steps from ${DATA.good} to ${DATA.bad}` :
      `${DATA.benchmark}: no step found from ${DATA.good} to ${DATA.bad}`;
    const rows = DATA.sessions.map((session, index) => {
      const first = versions.indexOf(session.sides[0]), last = versions.indexOf(session.sides[session.sides.length - 1]);
      return el("tr", {},
        el("th", {scope: "row"}, `session ${index + 1}`),
        versions.map((v, k) => {
          const side = session.sides.includes(v);
          const into = session.steps.slice(0, session.sides.length - 1).find(s => s.to === v);
          return el("td", {className: "rung" + (k >= first && k <= last ? " inside" : "") + (side ? " side" : "") +
                                      (into ? " " + into.verdict.replace(/ /g, "-") : ""),
                           title: into ? `${into.from} -> ${into.to}: ${into.verdict}, ${fmtChange(into.change)}` : ""},
            side ? "●" : "");
        }),
        el("td", {className: "steps"}, session.steps.map(s => el("div", {},
          `${s.from} -> ${s.to}: `, el("span", {className: "verdict", dataset: {verdict: s.verdict}}, s.verdict),
          ` ${fmtChange(s.change)} ${fmtInterval(s.low, s.high)}, ${s.rounds} rounds`))),
        el("td", {className: "number"}, `${session.rounds} rounds, ${session.minutes} min`));
    });
    MAIN.append(el("p", {className: "answer", id: "answer"}, answer), steps.length === 1 ? commitNote(steps[0].to) : "",
      steps.length > 1 ? el("ul", {id: "steps"}, steps.map(s => el("li", {}, stepText(s), commitNote(s.to)))) : "",
      ...(DATA.unsearched || []).map(u => el("p", {className: "uncertain"}, `unsearched: ${u.from} -> ${u.to}: ${u.why}`)),
      DATA.uncertain ? el("p", {className: "uncertain"}, "uncertain: " + DATA.uncertain) : "",
      section("The sessions, from the bracket down to the answer", el("p", {className: "legend"},
        `A row per session: the ${noun}s it timed (●) inside its bracket; a cell is coloured by the verdict of ` +
        "the step into it."), plainTable(["", ...versions, "steps", "took"], rows, {id: "ladder"})),
      skipped.length ? section("Skipped", el("ul", {id: "skipped"},
        skipped.map(c => el("li", {}, `${named(c.label)}: ${c.skipped}`)))) : "");
  }

  // -- a check-harness panel ----------------------------------------------------------------------
  function checkHarnessPage() {
    const ways = ["run", "compare", "plain"];
    const rows = DATA.rows.map(row => {
      const all = ways.flatMap(w => row.processes[w]);
      const spread = Math.max(...ways.map(w => row.processes[w].length ?
        Math.max(...row.processes[w]) / Math.min(...row.processes[w]) : 1));
      return el("tr", {}, el("th", {scope: "row"}, row.name),
        ways.map(w => el("td", {className: "number"}, fmtTime(row.medians[w]))),
        el("td", {className: "number"}, row.medians.plain ? fmtRatio(row.medians.run / row.medians.plain) : "-"),
        el("td", {className: "number"}, row.medians.plain ? fmtRatio(row.medians.compare / row.medians.plain) : "-"),
        el("td", {className: "number"}, all.length ? fmtRatio(spread) : "-"), verdictCell(row.verdict));
    });
    MAIN.append(el("p", {}, `${DATA.rows.length} benchmarks, ${DATA.processes || "?"} processes a way, tolerance ` +
                            `${DATA.tolerance === null ? "?" : (DATA.tolerance * 100).toFixed(0) + "%"}`),
      plainTable(["benchmark", "run", "compare", "plain", "run/plain", "compare/plain", "processes", "verdict"], rows,
                 {id: "panel"}));
  }

  // -- a history of runs --------------------------------------------------------------------------
  function historyPage() {
    const names = DATA.benchmarks.map(b => b.name);
    const chart = el("div", {id: "history-chart", className: "chart"});
    const body = el("tbody", {});
    const picker = el("span", {});
    const table = el("table", {id: "history"}, el("thead", {}, el("tr", {},
      ["run", "libraries that differ", "date", "multiple [95%]", "time", "its floor's time",
       "the floor against the first"].map(h =>
        el("th", {}, h)))), body);
    MAIN.append(el("p", {className: "legend"}, `${DATA.runs.length} runs in the order of their date. A ` +
      `benchmark's multiple of the floor (${DATA.floor} of its input and tier, timed in the same processes, ` +
      "milliseconds apart), which the machine's drift between runs barely moves, with the 95% interval over " +
      "the run's processes; its time behind it (dotted, right axis), which the drift moves as much as the code; " +
      "its floor's time against the first run drawn says how far the machine moved. An op that copies no " +
      "tensor has no multiple: its time alone. Only the runs that have the benchmark are drawn."),
      el("div", {className: "controls"}, el("label", {}, "benchmark ", picker)), chart, table);

    function render() {
      const state = readHash();
      const bench = DATA.benchmarks.find(b => b.name === state.benchmark) ||
                    DATA.benchmarks.find(b => !b.floor && b.copies) || DATA.benchmarks[0];
      if (!bench) { MAIN.append(el("p", {}, "No benchmark is in two of the runs.")); return; }
      writeHash({benchmark: bench.name});
      picker.replaceChildren(select("benchmark", names, bench.name, name => go(name)));
      const shown = DATA.runs.map((run, i) => [run, bench.points[i], i]).filter(([, p]) => p);
      const labels = shown.map(([run, , i]) => `${i + 1}: ${run.label}${run.dirty ? " (dirty)" : ""}`);
      const points = shown.map(([, p]) => p);
      const first = points.find(p => p.floor_time !== null);
      const traces = [];
      if (points.some(p => p.multiple !== null)) {
        traces.push({x: labels.map(plotText), y: points.map(p => p.multiple), name: "multiple of the floor",
          mode: "lines+markers",
          error_y: {type: "data", symmetric: false, array: points.map(p => p.high !== null ? p.high - p.multiple : 0),
                    arrayminus: points.map(p => p.low !== null ? p.multiple - p.low : 0)},
          hovertext: points.map((p, k) => `${fmtRatio(p.multiple)} of the floor; ${fmtTime(p.time)}` +
                                           (shown[k][0].libraries ? `; ${plotText(shown[k][0].libraries)}` : "")),
          hoverinfo: "text"});
      }
      traces.push({x: labels.map(plotText), y: points.map(p => p.time), name: "time per op",
        yaxis: traces.length ? "y2" : "y", mode: "lines+markers", line: {dash: "dot", color: "#7f7f7f"},
        hovertext: points.map(p => fmtTime(p.time)), hoverinfo: "text"});
      const seconds = {title: {text: "seconds per op"}, rangemode: "tozero", tickformat: ".3~s", ticksuffix: "s"};
      draw(chart, traces, {title: {text: plotText(bench.name)}, xaxis: {type: "category"},
        margin: {l: 70, r: 80, t: 30, b: 60},
        yaxis: traces.length > 1 ? {title: {text: "multiple of the floor"}, rangemode: "tozero"} : seconds,
        yaxis2: Object.assign({overlaying: "y", side: "right", showgrid: false}, seconds),
        legend: {orientation: "h", y: -0.25}});
      body.replaceChildren(...shown.map(([run, p], k) => el("tr", {dataset: {run: labels[k]}},
        el("th", {scope: "row", title: run.path}, labels[k]), el("td", {}, run.libraries || "-"),
        el("td", {}, run.date || "-"),
        el("td", {className: "number multiple"}, p.multiple === null ? "no copy" :
          `${fmtRatio(p.multiple)} [${fmtRatio(p.low)}, ${fmtRatio(p.high)}]`),
        el("td", {className: "number"}, fmtTime(p.time)),
        el("td", {className: "number"}, fmtTime(p.floor_time)),
        el("td", {className: "number floor-change"}, first && p.floor_time !== null ?
          fmtChange(p.floor_time / first.floor_time - 1) : "-"))));
    }

    function go(name) { writeHash({benchmark: name}); render(); }
    window.addEventListener("hashchange", render);
    render();
  }

  document.getElementById("title").textContent = DATA.title;
  const PAGES = {index: indexPage, run: runPage, compare: comparePage, sweep: sweepPage, bisect: bisectPage,
                 "check-harness": checkHarnessPage, history: historyPage};
  PAGES[document.body.dataset.page]();
})();
