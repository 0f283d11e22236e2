/* serialbench's site: lays out one page from the JSON the page carries (serialbench/views/site/).

Every string from a result file is written with textContent (el() below), never as markup, and goes to
plotly.js only through plotText(), because plotly reads a subset of HTML in its trace names, hover and
annotation text. The view (input, direction, implementations, benchmark, step) lives in the URL hash, so
a copied link reproduces it; a change of the hash (a pasted link, the back button) draws the view again.
Every number on the page comes from Python as the terminal prints it (views/site/pages.py, core/formatting.py):
this script formats none, and draws the tables of views/table.py with one function (drawTable). */
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("page-data").textContent);
  const MAIN = document.getElementById("main");
  const COLOUR = {"slower": "#d62728", "faster": "#2ca02c", "no change": "#7f7f7f",
                  "too noisy to tell": "#ff7f0e", "two speeds": "#9467bd", "at the threshold": "#8c564b"};
  const CONFIG = {displaylogo: false, responsive: true, modeBarButtonsToRemove: ["select2d", "lasso2d"]};
  // A sweep's or bisection's sides when they are commits of a library's repository (pages.py commits_data).
  const COMMITS = new Map((DATA.commits || []).map(c => [c.label, c]));

  // -- text -----------------------------------------------------------------------------------------
  function el(tag, props, ...children) {
    const node = document.createElement(tag);
    for (const [key, value] of Object.entries(props || {})) {
      if (key === "dataset") Object.assign(node.dataset, value);
      else if (key === "on") for (const [event, handler] of Object.entries(value)) node.addEventListener(event, handler);
      else node[key] = value;  // className, id, href, title...: properties, never HTML
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined) continue;
      node.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return node;
  }

  function plotText(text) {  // for plotly: its pseudo-HTML turned back into the characters it stands for
    return String(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  }

  // -- the view in the hash -----------------------------------------------------------------------
  function readHash() {  // {input, direction, impls, benchmark, step}: what the page shows
    return Object.fromEntries(new URLSearchParams(location.hash.slice(1)));
  }

  function writeHash(state) {
    const params = new URLSearchParams();
    for (const [key, value] of Object.entries(state)) if (value !== undefined && value !== null) params.set(key, value);
    const hash = "#" + params.toString();
    if (hash !== location.hash) history.replaceState(null, "", hash);
  }

  // A page's view, drawn by `render` from the hash now and at each change of it; go(state) shows another.
  function follow(render) {
    window.addEventListener("hashchange", render);
    render();
    return state => { writeHash(state); render(); };
  }

  // -- shared pieces ------------------------------------------------------------------------------
  function section(title, ...children) {
    return el("section", {}, el("h2", {}, title), ...children);
  }

  // A views/table.py Table (its data()); `row(tr, row)` and `cell(td, row, index)` add a page's classes and clicks;
  // the column headed `verdict` is coloured by each row's word (its data's `verdict`, site.css).
  function drawTable(table, opts) {
    opts = opts || {};
    const labelled = table.corner !== null, left = new Set(table.left);
    const node = el("table", {id: opts.id || ""}, el("thead", {}, el("tr", {},
      (labelled ? [table.corner] : []).concat(table.columns).map(h => el("th", {}, h)))), el("tbody", {},
      table.rows.map(row => {
        const tr = el("tr", {className: row.start ? "group-start" : ""}, labelled ? el("th", {scope: "row"}, row.label) : "",
          row.cells.map((cell, i) => {  // a cell: its lines, or {lines, mark}
            const mark = cell && cell.mark, lines = cell && (cell.lines || cell);
            const td = el("td", {className: (left.has(i + labelled) ? "" : "number") + (mark === "*" ? " marked" : "")},
              lines ? lines.map((line, k) => el("div", {className: k ? "minor" : ""},
                                                !k && mark === "=" ? "= " + line : line)) : "-");
            if (table.columns[i] === opts.verdict) Object.assign(td, {className: "verdict"}).dataset.verdict =
              row.data.verdict;
            if (opts.cell) opts.cell(td, row, i);
            return td;
          }));
        if (opts.row) opts.row(tr, row);
        return [tr, row.block && el("tr", {className: "block"}, el("td", {colSpan: table.columns.length + labelled},
                                                                     drawTable(row.block)))];  // lines under the row
      })));
    return table.title ? el("figure", {className: "grid"}, el("figcaption", {}, el("strong", {}, table.title),
      el("p", {className: "legend"}, table.legend)), node, table.notes.map(note => el("p", {className: "note"}, note))) : node;
  }

  function commitNote(label) {  // what a commit side is (pages.py commits_data), the paths it changed on hover
    const c = COMMITS.get(label);
    return c ? el("div", {className: "commit", title: c.files.join("\n"), dataset: {label}}, c.note) : "";
  }

  function list(lines, props) {
    return el("ul", props, lines.map(line => el("li", {}, line)));
  }

  function commitsTable() {  // a commit's sha and the paths it changed on hover
    return drawTable(DATA.commits_table, {id: "commits", row: (tr, row) => {
      tr.dataset.label = row.label;
      tr.firstChild.title = row.data.sha;
      tr.children[3].title = row.data.files.join("\n");
      if (row.cells[3][0].startsWith("skipped")) tr.children[4].classList.add("uncertain");
    }});
  }

  function draw(node, traces, layout, config) {
    Plotly.react(node, traces, Object.assign({margin: {l: 70, r: 20, t: 30, b: 60}, hovermode: "closest",
                                              font: {size: 12}}, layout), Object.assign({}, CONFIG, config));
  }

  // -- the index ----------------------------------------------------------------------------------
  function indexPage() {
    MAIN.append(el("p", {}, DATA.legend),
      drawTable(DATA.table, {id: "results", row: (tr, row) => { tr.dataset.kind = row.data.kind; },
        cell: (td, row, i) => { if (i === 1) td.replaceChildren(el("a", {href: row.data.href}, row.data.title)); }}));
  }

  // -- a run --------------------------------------------------------------------------------------
  function runPage() {
    const views = DATA.views;
    const inputs = [...new Set(views.map(v => v.input))];
    const controls = el("div", {className: "controls"});
    const chart = el("div", {id: "chart", className: "chart"});
    const tip = el("p", {className: "hint"}, DATA.hint);
    const focus = el("div", {id: "focus"});
    const tables = el("div", {id: "tables"});
    MAIN.append(list(DATA.head, {className: "head"}), controls, chart, tip, focus, tables);
    const byName = new Map(DATA.benchmarks.map(b => [b.name, b]));

    function render() {
      const state = readHash();
      const input = inputs.includes(state.input) ? state.input : inputs[0];
      const directions = views.filter(v => v.input === input).map(v => v.direction);
      const direction = directions.includes(state.direction) ? state.direction : directions[0];
      const view = views.find(v => v.input === input && v.direction === direction);
      const present = view.impls.flatMap(([, rows]) => rows);
      let chosen = state.impls === undefined ? view.fastest : state.impls.split(",").filter(r => present.includes(r));
      const focused = byName.get(state.benchmark);
      const benchmark = focused && focused.input === input && (focused.direction === direction ||
                                                               focused.row === DATA.floor) ? focused : null;
      writeHash({input, direction, impls: chosen.join(","), benchmark: benchmark ? benchmark.name : undefined});
      focus.replaceChildren(benchmark ? list(benchmark.hover, {className: "focus"}) : "");

      controls.replaceChildren(
        el("label", {}, "input ", select("input", inputs, input, value => go({input: value, direction, impls: undefined}))),
        el("label", {}, "direction ", select("direction", directions, direction,
                                             value => go({input, direction: value, impls: undefined}))),
        [["fastest", "fastest of each format", undefined], ["all", "all", present.join(",")], ["none", "none", ""]]
          .map(([id, label, impls]) => el("button", {type: "button", id, on: {click: () => go({input, direction, impls})}},
                                          label)),
        el("div", {className: "impls", id: "impls"}, view.impls.map(([format, rows]) =>
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
        section("Median time per op, and its multiple of the memcpy floor", view.timing.map(t => drawTable(t))),
        (DATA.roundtrip[input] || []).length ? section("The round trip", DATA.roundtrip[input].map(t => drawTable(t))) : "",
        view.costs.length ? section("Cost per request and per byte", view.costs.map(t => drawTable(t))) : "",
        view.memory.length ? section("Allocations and memory per op", view.memory.map(t => drawTable(t))) : "");
    }

    function series(row, input, direction, anyDirection) {
      const points = DATA.benchmarks.filter(b => b.row === row && b.input === input
                                                && (anyDirection || b.direction === direction))
        .sort((a, b) => DATA.tiers[a.tier] - DATA.tiers[b.tier]);
      if (!points.length) return null;
      return {type: "scatter", x: points.map(b => DATA.tiers[b.tier]), y: points.map(b => b.median),
              text: points.map(b => b.hover.map(plotText).join("<br>")), hovertemplate: "%{text}<extra></extra>", customdata: points.map(b => b.name)};
    }

    const go = follow(render);
    chart.on("plotly_click", event => {
      const point = event.points[0];
      if (point) go(Object.assign(readHash(), {benchmark: point.customdata}));
    });
  }

  function select(id, options, value, onChange) {
    return el("select", {id, on: {change: event => onChange(event.target.value)}},
      options.map(option => el("option", {value: option, selected: option === value}, option)));
  }

  // -- a compare ----------------------------------------------------------------------------------
  function comparePage() {
    const theta = DATA.min_effect, table = DATA.table;
    const at = header => table.columns.indexOf(header);
    const rows = table.rows.map(row => Object.assign({text: row.cells[at("change [interval]")][0]}, row.data));
    const forest = el("div", {id: "forest", className: "chart"});
    const detail = el("div", {id: "detail"});
    const holder = el("div", {});
    MAIN.append(section("The sides, as they ran", drawTable(DATA.sides, {id: "sides"})),
      section("Verdicts", holder, DATA.legend.map(line => el("p", {className: "legend"}, line)),
        el("p", {className: "hint"}, "Click a row for its rounds."), detail),
      section("Forest plot", el("p", {className: "legend"}, DATA.forest_legend), forest));

    function render() {
      const chosen = rows.find(r => r.name === readHash().benchmark && DATA.rounds[r.name]);
      writeHash({benchmark: chosen ? chosen.name : undefined});
      holder.replaceChildren(drawTable(table, {id: "verdicts",
        row: (tr, row) => {
          Object.assign(tr.dataset, {name: row.data.name});
          if (chosen && row.data.name === chosen.name) tr.classList.add("selected");
          if (DATA.rounds[row.data.name]) tr.addEventListener("click", () => go({benchmark: row.data.name}));
        },
        verdict: "verdict", cell: (td, row, i) => {
          if (i === at("change [interval]")) td.classList.add("interval");
        }}));
      detail.replaceChildren(chosen ? el("div", {className: "rounds"}, el("h3", {}, chosen.name),
        el("p", {}, `${chosen.verdict}: ${chosen.text}, ${chosen.rounds} rounds. ${DATA.rounds[chosen.name].legend}`),
        roundsChart(DATA.rounds[chosen.name], chosen.verdict, Infinity)) : "");
    }

    const go = follow(render);
    drawForest(forest, rows, theta);
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
              text: mine.map(r => [r.name, `${r.verdict}: ${r.text}`, `${r.rounds} rounds`].map(plotText).join("<br>")),
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

  // Each round's change ({values, texts} from Python), the first `judged` in the verdict's colour.
  function roundsChart(rounds, verdict, judged) {
    const node = el("div", {className: "chart small", id: "rounds"}), theta = DATA.min_effect * 100;
    requestAnimationFrame(() => draw(node, [{type: "scatter", mode: "markers", x: rounds.values.map((_, i) => i + 1),
      y: rounds.values.map(c => c * 100), text: rounds.texts.map((t, i) => `round ${i + 1}: ${t}`),
      hovertemplate: "%{text}<extra></extra>",
      marker: {color: rounds.values.map((_, i) => i < judged ? COLOUR[verdict] || "#333" : "#bbb")}}], {
      xaxis: {title: {text: "round"}}, yaxis: {title: {text: "change (%)"}, ticksuffix: "%"}, height: 260,
      showlegend: false, shapes: [-theta, theta].map(y => ({type: "line", xref: "paper", x0: 0, x1: 1, y0: y, y1: y,
                                                            line: {color: "#888", dash: "dash", width: 1}}))}));
    return node;
  }

  // -- a sweep ------------------------------------------------------------------------------------
  function sweepPage() {
    const charts = el("div", {id: "charts", className: "panels"});
    const grid = el("div", {id: "grid"});
    const detail = el("div", {id: "step"});
    // A sweep of commits says "commit" where one of releases says "release" (pages.py), and names its commits.
    const noun = DATA.noun || "release";
    const panels = DATA.benchmarks.map((bench, index) =>
      charts.appendChild(el("div", {className: "chart panel", id: `panel-${index}`, dataset: {name: bench.name}})));
    const what = DATA.history || DATA.library;
    MAIN.append(el("p", {}, (what ? what + ": " : "") + DATA.summary + (DATA.date ? `; ${DATA.date}` : "")),
      section(`Benchmark by ${noun}`, DATA.legend.map(line => el("p", {className: "legend"}, line)),
        el("p", {className: "hint"}, "Click a cell, or a point of a chart, for its step."), grid, detail),
      section(`Time against ${noun}`, el("p", {className: "legend"}, DATA.chart_legend), charts),
      section("The whole selection, step by step", drawTable(DATA.selection, {id: "selection", verdict: "verdict"})),
      COMMITS.size ? section("Commits", commitsTable()) : "",
      DATA.left_out_lines.length ? section(COMMITS.size ? "Skipped" : "Left out", list(DATA.left_out_lines)) : "",
      section("Where each side was timed", list(DATA.machines)));

    function render() {
      const state = readHash();
      const bench = DATA.benchmarks.find(b => b.name === state.benchmark) || DATA.benchmarks[0];
      const chosen = bench.steps.find(s => s.to === state.step);
      writeHash({benchmark: bench.name, step: chosen ? chosen.to : undefined});
      grid.replaceChildren(drawTable(DATA.grid, {id: "releases",
        row: (tr, row) => {
          Object.assign(tr.dataset, {name: row.label});
          tr.classList.toggle("selected", row.label === bench.name);
          tr.firstChild.addEventListener("click", () => go({benchmark: row.label}));
        },
        cell: (td, row, k) => {  // shaded by the change against the anchor, outlined where a step is
          const side = DATA.sides[k], mine = DATA.benchmarks.find(b => b.name === row.label);
          const against = mine.from_anchor.find(s => s.to === side), step = mine.steps.find(s => s.to === side);
          if (!against) return td.classList.add("anchor");
          const changed = step && (step.verdict === "slower" || step.verdict === "faster");
          td.className += " cell" + (changed ? " step " + step.verdict.replace(/ /g, "-") : "") +
                          (mine === bench && step === chosen ? " chosen" : "");
          Object.assign(td.dataset, {side, verdict: step ? step.verdict : ""});
          td.style.backgroundColor = shade(against.change);
          td.title = step ? `${step.from} -> ${step.to}: ${step.verdict}, ${step.change_text}` : "";
          td.addEventListener("click", () => go({benchmark: row.label, step: side}));
        }}));
      panels.forEach(node => node.classList.toggle("selected", node.dataset.name === bench.name));
      detail.replaceChildren(chosen ? stepView(bench, chosen) : el("p", {className: "hint"},
        "Select a step (a cell of the grid, or a point of a chart) for its verdict, interval and rounds."));
    }

    const go = follow(render);
    DATA.benchmarks.forEach((bench, index) => {
      drawSweep(panels[index], bench);
      panels[index].on("plotly_click", event => {
        const point = event.points[0];
        if (point) go({benchmark: bench.name, step: bench.steps.some(s => s.to === point.x) ? point.x : undefined});
      });
    });
  }

  function shade(change) {  // red for more time, green for less, full at +-50%
    if (change === null || change === undefined) return "transparent";
    const strength = Math.min(Math.abs(change) / 0.5, 1) * 0.75;
    return change > 0 ? `rgba(214, 39, 40, ${strength})` : `rgba(44, 160, 44, ${strength})`;
  }

  function drawSweep(node, bench) {
    const line = bench.line;  // the anchor's median times 1 + the change against it (pages.py sweep_line)
    // A step's shading and change sit at its sides' positions on the category axis, not at their labels:
    // plotly reads a label that looks like a number (a release 3.0, a commit 12345678) as a position.
    const at = side => DATA.sides.indexOf(side);
    const steps = bench.steps.filter(step => step.verdict === "slower" || step.verdict === "faster");
    draw(node, [{type: "scatter", mode: "lines+markers", x: line.x.map(plotText), y: line.y, meta: bench.name,
                 name: plotText(bench.name), error_y: {type: "data", symmetric: false, array: line.plus,
                 arrayminus: line.minus}, text: line.text.map(plotText), hovertemplate: "%{text}<extra></extra>",
                 line: {color: "#1f77b4"}}], {
      title: {text: plotText(bench.name), font: {size: 12}, x: 0.02, xanchor: "left"}, showlegend: false,
      height: 300, margin: {l: 60, r: 10, t: 44, b: 60},
      // A step against the anchor (interpreters) shades its later side's column, not the span from the anchor.
      shapes: steps.map(step => ({type: "rect", xref: "x", yref: "paper", y0: 0, y1: 1,
        x0: DATA.against_anchor ? at(step.to) - 0.4 : at(step.from), x1: at(step.to) + (DATA.against_anchor ? 0.4 : 0),
        layer: "below", fillcolor: COLOUR[step.verdict], opacity: 0.15, line: {width: 0}})),
      annotations: steps.map(step => ({xref: "x", yref: "paper", x: at(step.to), y: 1, yanchor: "bottom",
        showarrow: false, text: plotText(step.change_text), font: {color: COLOUR[step.verdict], size: 11}})),
      xaxis: {type: "category", categoryorder: "array", categoryarray: DATA.sides.map(plotText), tickangle: -45},
      yaxis: {tickformat: ".3~s", ticksuffix: "s", rangemode: "tozero"}}, {displayModeBar: false});
  }

  function stepView(bench, step) {
    const rounds = DATA.rounds[`${bench.name} ${step.from} ${step.to}`];
    return el("div", {className: "step-detail"},
      el("h3", {}, `${bench.name}: ${step.from} -> ${step.to}`), commitNote(step.to),
      el("p", {}, el("span", {className: "verdict", dataset: {verdict: step.verdict}}, step.verdict),
        `: ${step.text} (95%), ${step.rounds} rounds`),
      rounds ? [roundsChart(rounds, step.verdict, step.rounds), el("p", {className: "legend"}, rounds.legend)] :
        el("p", {className: "hint"}, "The side files of this session are not in the site: no rounds to show."));
  }

  // -- a bisection --------------------------------------------------------------------------------
  function bisectPage() {
    const steps = DATA.steps;  // each step found, its later side (for its commit) and, of several, its line
    const skipped = (DATA.commits || []).filter(c => c.skipped !== null);  // tried, and could not be used
    MAIN.append(el("p", {className: "answer", id: "answer"}, DATA.answer), steps.length === 1 ? commitNote(steps[0].to) : "",
      steps.length > 1 ? el("ul", {id: "steps"}, steps.map(s => el("li", {}, s.line, commitNote(s.to)))) : "",
      ...DATA.uncertain_lines.map(line => el("p", {className: "uncertain"}, line)),
      section("The sessions, from the bracket down to the answer", el("p", {className: "legend"}, DATA.ladder_legend),
        drawTable(DATA.ladder, {id: "ladder",
        cell: (td, row, k) => {  // a rung: inside the session's bracket, a side it timed, the step into it
          const rung = row.data.rungs[k];
          if (rung) Object.assign(td, {title: rung.title, className: "rung" + (rung.inside ? " inside" : "") +
            (rung.side ? " side" : "") + (rung.verdict ? " " + rung.verdict.replace(/ /g, "-") : "")});
        }})),
      skipped.length ? section("Skipped", list(skipped.map(c => `${c.named}: ${c.skipped}`), {id: "skipped"})) : "");
  }

  // -- a check-harness panel ----------------------------------------------------------------------
  function checkHarnessPage() {
    MAIN.append(el("p", {}, DATA.summary), drawTable(DATA.table, {id: "panel", verdict: ""}));
  }

  // -- a history of runs --------------------------------------------------------------------------
  function historyPage() {
    const names = DATA.benchmarks.map(b => b.name);
    const chart = el("div", {id: "history-chart", className: "chart"});
    const table = el("div", {});
    const picker = el("span", {});
    MAIN.append(el("p", {className: "legend"}, DATA.legend),
      el("div", {className: "controls"}, el("label", {}, "benchmark ", picker)), chart, table);

    function render() {
      const state = readHash();
      const bench = DATA.benchmarks.find(b => b.name === state.benchmark) ||
                    DATA.benchmarks.find(b => !b.floor && b.copies) || DATA.benchmarks[0];
      if (!bench) { MAIN.append(el("p", {}, "No benchmark is in two of the runs.")); return; }
      writeHash({benchmark: bench.name});
      picker.replaceChildren(select("benchmark", names, bench.name, name => go({benchmark: name})));
      const shown = DATA.runs.map((run, i) => [run, bench.points[i], i]).filter(([, p]) => p);
      const labels = shown.map(([run]) => run.shown);
      const points = shown.map(([, p]) => p);
      const traces = [];
      if (points.some(p => p.multiple !== null)) {
        traces.push({x: labels.map(plotText), y: points.map(p => p.multiple), name: "multiple of the floor",
          mode: "lines+markers",
          error_y: {type: "data", symmetric: false, array: points.map(p => p.high !== null ? p.high - p.multiple : 0),
                    arrayminus: points.map(p => p.low !== null ? p.multiple - p.low : 0)},
          hovertext: points.map((p, k) => `${p.multiple_text} of the floor; ${p.time_text}` +
                                           (shown[k][0].libraries ? `; ${plotText(shown[k][0].libraries)}` : "")),
          hoverinfo: "text"});
      }
      traces.push({x: labels.map(plotText), y: points.map(p => p.time), name: "time per op",
        yaxis: traces.length ? "y2" : "y", mode: "lines+markers", line: {dash: "dot", color: "#7f7f7f"},
        hovertext: points.map(p => p.time_text), hoverinfo: "text"});
      const seconds = {title: {text: "seconds per op"}, rangemode: "tozero", tickformat: ".3~s", ticksuffix: "s"};
      draw(chart, traces, {title: {text: plotText(bench.name)}, xaxis: {type: "category"},
        margin: {l: 70, r: 80, t: 30, b: 60},
        yaxis: traces.length > 1 ? {title: {text: "multiple of the floor"}, rangemode: "tozero"} : seconds,
        yaxis2: Object.assign({overlaying: "y", side: "right", showgrid: false}, seconds),
        legend: {orientation: "h", y: -0.25}});
      table.replaceChildren(drawTable(bench.table, {id: "history"}));
    }

    const go = follow(render);
  }

  document.getElementById("title").textContent = DATA.title;
  const PAGES = {index: indexPage, run: runPage, compare: comparePage, sweep: sweepPage, bisect: bisectPage,
                 "check-harness": checkHarnessPage, history: historyPage};
  PAGES[document.body.dataset.page]();
})();
