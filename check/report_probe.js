// SPDX-License-Identifier: GPL-2.0
// Injected into a copy of zc-compare's HTML page by check/tools/t_report.sh
// (the page itself carries no script): measures it as chromium laid it
// out and writes what it found into a pre element (id zc-probe) for
// chromium --dump-dom.
(function () {
	var out = [], v = document.getElementById("verdict"), h = window.innerHeight;
	var r = v ? v.getBoundingClientRect() : null;
	out.push("verdict_bottom " + (r ? Math.round(r.bottom) : -1) + " screen " + h);
	// every title measured, the folded ones too
	document.querySelectorAll("details").forEach(function (d) { d.open = true; });
	var broken = 0, titles = document.querySelectorAll("h3");
	titles.forEach(function (t) {
		var text = t.textContent, re = /[^\s./]+/g, m, node, walker;
		// each word of the title: one line box, or it was broken
		walker = document.createTreeWalker(t, NodeFilter.SHOW_TEXT);
		while ((node = walker.nextNode())) {
			while ((m = re.exec(node.data))) {
				var rg = document.createRange();
				rg.setStart(node, m.index);
				rg.setEnd(node, m.index + m[0].length);
				var tops = {};
				Array.prototype.forEach.call(rg.getClientRects(), function (c) {
					if (c.width > 0)
						tops[Math.round(c.top)] = 1;
				});
				if (Object.keys(tops).length > 1) {
					broken++;
					out.push("broken_word " + JSON.stringify(m[0]) + " in " + JSON.stringify(text));
				}
			}
			re.lastIndex = 0;
		}
	});
	out.push("titles " + titles.length + " broken " + broken);
	var p = document.createElement("pre");
	p.id = "zc-probe";
	p.textContent = out.join("\n");
	document.body.appendChild(p);
})();
