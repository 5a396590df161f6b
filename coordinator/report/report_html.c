/*
 * report_html: a matrix run as one self-contained HTML page: the verdict
 * first, when and how the run was measured, a heatmap per network for
 * each metric that was measured (a continuous colour scale against the
 * profile's limit, with its legend; every cell's figures on hover), the
 * findings (hovering one lights the directions it explains), the fabric
 * as traced, the hosts' paths. The data is the JSON result tree inline:
 * nothing is fetched, the page works offline and from a mail. See
 * report.h.
 */
#include "report/report.h"
#include "core/core.h"

#include <stdio.h>
#include <stdlib.h>

/* The page before its data. */
static const char html_head[] =
	    "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><tit"
	    "le>cephfab matrix</title><style>\nbody{font:14px sans-serif;margi"
	    "n:2em;color:#222;max-width:80em}table{border-collapse:collapse;m"
	    "argin:.5em 0 1em}td,th{border:1px solid #ccc;padding:4px 6px;tex"
	    "t-align:right;min-width:3.5em}th{background:#eee;font-weight:600"
	    "}th[scope=row]{text-align:left}td.lost{background:#d7b5e8}td.sel"
	    "f{background:#fafafa;color:#999;text-align:center}td.hl{outline:"
	    "3px solid #000}td.cell{cursor:help}.verdict{font-size:1.6em;font"
	    "-weight:700;padding:.3em .6em;display:inline-block;border-radius"
	    ":4px}.v-pass{background:#a8e0a0}.v-fail{background:#f4a7a7}"
	    ".v-incomplete{background:#f4e08a}#meta"
	    ",#opts{color:#555;margin:.3em 0}.cap{color:#555;margin:0;font-st"
	    "yle:italic}#legend{display:flex;align-items:center;gap:.6em;marg"
	    "in:.6em 0;flex-wrap:wrap}.bar{width:16em;height:1em;border:1px s"
	    "olid #999}.barlab{display:flex;justify-content:space-between;wid"
	    "th:24em;color:#555;font-size:12px}.f-error{color:#b00}.f-warn{co"
	    "lor:#a60}button{margin-right:.5em;padding:3px 8px}button.on{font"
	    "-weight:700;border:2px solid #333}svg.fabric text{font:11px mono"
	    "space}\n</style></head><body>\n<h1>cephfab matrix</h1><p id=\"verdi"
	    "ct\"></p><p id=\"meta\"></p><p id=\"opts\"></p><div id=\"metrics\"></di"
	    "v><div id=\"legend\"></div><div id=\"grids\"></div><h2>Findings</h2>"
	    "<ol id=\"findings\"></ol><h2>Paths</h2><table id=\"topology\"></tabl"
	    "e>\n<script>\n";

/* The script after "const D=...;const E=...;": it draws the page from D
 * (the result tree) and E (the envelope: version). */
static const char html_script[] =
	    "const M={gbps:'Gbit/s',loss_retransmits_per_gb:'loss retransmits"
	    " per GB',rtt_p50_us:'RTT p50 (us)',rtt_p99_us:'RTT p99 (us)',cep"
	    "h_ping_ms:'Ceph heartbeat (ms)',path_mtu:'path MTU (bytes)',port"
	    "s:'Ceph ports not open'};\nconst VERB={rtt_p50_us:'probes',rtt_p9"
	    "9_us:'probes',ceph_ping_ms:'pings',ports:'connects to'};\nconst L"
	    "=D.limits||{};\nfunction val(c,m){if(m==='ports')return Array.isA"
	    "rray(c.ports)?c.ports.length:null;const v=c[m];return typeof v=="
	    "='number'?v:null;}\nconst nets=Object.entries(D.networks||{});\nco"
	    "nst measured=Object.keys(M).filter(m=>nets.some(([n,nd])=>nd.cel"
	    "ls.some(c=>val(c,m)!==null)));\nlet metric=measured[0]||null;\nfun"
	    "ction median(m){const a=[];for(const [n,nd] of nets)for(const c "
	    "of nd.cells){const v=val(c,m);if(v!==null)a.push(v);}a.sort((x,y"
	    ")=>x-y);return a.length?a[a.length>>1]:0;}\nconst MED={};for(cons"
	    "t m of measured)MED[m]=median(m);\n/* The limit a metric is judge"
	    "d by: its badness is 0.5 there. */\nfunction lim(m){switch(m){cas"
	    "e 'gbps':return D.floor_gbps||0.7*MED.gbps||1;\ncase 'loss_retran"
	    "smits_per_gb':return L.max_loss_retransmits_per_gb||100;\ncase 'r"
	    "tt_p50_us':case 'rtt_p99_us':return L.max_rtt_p99_us||4*MED[m]||"
	    "1;\ndefault:return 2*MED[m]||1;}}\n/* badness in [0, 1]: 0 green, "
	    "0.5 yellow at the limit, 1 red. */\nfunction bad(m,v,c){const cl="
	    "x=>Math.max(0,Math.min(1,x)),l=lim(m);\nif(m==='gbps')return cl(("
	    "1.5*l-v)/l);\nif(m==='path_mtu')return c.configured_mtu!==null&&v"
	    "<c.configured_mtu?1:0;\nif(m==='ports')return v>0?1:0;return cl(v"
	    "/(2*l));}\nfunction colour(b){return 'hsl('+Math.round(120*(1-b))"
	    "+',65%,72%)';}\nfunction fmt(m,v){if(v===null)return '?';if(m==='"
	    "gbps')return v.toFixed(2);\nif(m==='ports')return v?v+' shut':'ok"
	    "';if(m==='loss_retransmits_per_gb'&&v<10)return v.toFixed(1);ret"
	    "urn String(Math.round(v));}\nfunction tip(net,s,d,c){const r=[s+'"
	    " \\u2192 '+d+' on the '+net+' network','state: '+c.state+(c.reaso"
	    "n?' ('+c.reason+')':'')];\nconst num=(x,p)=>typeof x==='number'?x"
	    ".toFixed(p):'not measured';\nif(c.gbps!==null)r.push('throughput:"
	    " '+num(c.gbps,3)+' Gbit/s');\nif(c.loss_retransmits_per_gb!==null"
	    ")r.push('loss retransmits: '+num(c.loss_retransmits_per_gb,1)+' "
	    "per GB');\nif(c.rtt_p99_us!==null)r.push('RTT p50 / p99: '+num(c."
	    "rtt_p50_us,0)+' / '+num(c.rtt_p99_us,0)+' us');\nif(typeof c.ceph"
	    "_ping_ms==='number')r.push('Ceph heartbeat: '+num(c.ceph_ping_ms"
	    ",3)+' ms');\nif(c.path_mtu!==null)r.push('path MTU: '+num(c.path_"
	    "mtu,0)+' of '+num(c.configured_mtu,0)+' configured');\nif(Array.i"
	    "sArray(c.ports))r.push('Ceph ports: '+(c.ports.length?c.ports.ma"
	    "p(p=>p.port+' '+p.state).join(', '):'all open'));\nreturn r.join("
	    "'\\n');}\nfunction legend(){const g=document.getElementById('legen"
	    "d');g.innerHTML='';if(!metric)return;\nconst bar=document.createE"
	    "lement('div');bar.className='bar';\nbar.style.background='linear-"
	    "gradient(to right,'+colour(0)+','+colour(0.5)+','+colour(1)+')';"
	    "\nconst lab=document.createElement('div');lab.className='barlab';"
	    "const l=lim(metric);\nlet t;if(metric==='gbps')t=[fmt(metric,1.5*"
	    "l)+' and more','floor '+fmt(metric,l),fmt(metric,0.5*l)+' and le"
	    "ss'];\nelse if(metric==='path_mtu')t=['as configured','','smaller"
	    ": a black hole'];\nelse if(metric==='ports')t=['all open','','som"
	    "e not'];\nelse t=['0','limit '+fmt(metric,l),fmt(metric,2*l)+' an"
	    "d more'];\nfor(const x of t){const sp=document.createElement('spa"
	    "n');sp.textContent=x;lab.appendChild(sp);}\nconst u=document.crea"
	    "teElement('span');u.textContent=M[metric]+': ';g.appendChild(u);"
	    "g.appendChild(bar);g.appendChild(lab);}\nfunction draw(){const g="
	    "document.getElementById('grids');g.innerHTML='';if(!metric)retur"
	    "n;const H=D.hosts.map(h=>h.name);\nfor(const [net,nd] of nets){co"
	    "nst h2=document.createElement('h2');h2.textContent=net+' network"
	    ": '+M[metric];g.appendChild(h2);\nconst cap=document.createElemen"
	    "t('p');cap.className='cap';cap.textContent='row '+(VERB[metric]|"
	    "|'sends to')+' column';g.appendChild(cap);\nconst t=document.crea"
	    "teElement('table');t.className='grid';t.dataset.net=net;\nconst i"
	    "dx={};for(const c of nd.cells)idx[c.src+'\\u0000'+c.dst]=c;\nlet r"
	    "=t.insertRow();const corner=document.createElement('th');corner."
	    "textContent='from \\\\ to';r.appendChild(corner);\nfor(const h of H"
	    "){const th=document.createElement('th');th.textContent=h;th.scop"
	    "e='col';r.appendChild(th);}\nfor(const s of H){r=t.insertRow();co"
	    "nst th=document.createElement('th');th.textContent=s;th.scope='r"
	    "ow';r.appendChild(th);\nfor(const d of H){const td=r.insertCell()"
	    ";td.className='cell';\nif(s===d){td.className+=' self';td.textCon"
	    "tent='\\u2013';continue;}\nconst c=idx[s+'\\u0000'+d];td.id='c-'+ne"
	    "t+'-'+s+'-'+d;if(!c)continue;td.title=tip(net,s,d,c);\nif(c.state"
	    "==='lost'){td.className+=' lost';td.textContent='lost';continue;"
	    "}\nif(c.state==='skipped'&&metric==='gbps'){td.className+=' skip'"
	    ";td.textContent='mtu!';td.style.background=colour(1);continue;}\n"
	    "const v=val(c,metric);td.textContent=fmt(metric,v);if(v!==null)t"
	    "d.style.background=colour(bad(metric,v,c));}}\ng.appendChild(t);i"
	    "f(nd.fabric)g.appendChild(fab(net,nd.fabric));}\nfor(const b of d"
	    "ocument.querySelectorAll('#metrics button'))b.classList.toggle('"
	    "on',b.dataset.m===metric);legend();}\n/* The fabric as traced: se"
	    "nders, the routers by hop, receivers; a step's width grows with "
	    "its flows, red when most of them lost packets, dashed black wher"
	    "e a finding names the link. */\nfunction suspect(net,to){return D"
	    ".findings.some(f=>f.network===net&&f.location&&f.location.ends&&"
	    "(f.location.direction==='both'?f.location.ends.includes(to):f.lo"
	    "cation.ends[1]===to));}\nfunction fab(net,F){const NS='http://www"
	    ".w3.org/2000/svg';let md=1;for(const s of F.steps)md=Math.max(md"
	    ",s[2]);\nconst to=s=>s[2]<0?md+1:s[2],from=s=>s[2]<0?-1-s[2]:s[2]"
	    "-1,pos={},cnt={};\nconst put=(n,c)=>{const k=c+'|'+n;if(pos[k])re"
	    "turn pos[k];cnt[c]=(cnt[c]||0)+1;return pos[k]={x:20+c*170,y:20+"
	    "cnt[c]*26,n:n};};\nfor(const s of F.steps){put(s[0],from(s));put("
	    "s[1],to(s));}\nconst sv=document.createElementNS(NS,'svg');let H="
	    "0;for(const c in cnt)H=Math.max(H,cnt[c]);\nsv.setAttribute('widt"
	    "h',(md+2)*170+120);sv.setAttribute('height',H*26+40);sv.setAttri"
	    "bute('class','fabric');\nfor(const s of F.steps){const a=pos[from"
	    "(s)+'|'+s[0]],b=pos[to(s)+'|'+s[1]];const l=document.createEleme"
	    "ntNS(NS,'line');\nl.setAttribute('x1',a.x+90);l.setAttribute('y1'"
	    ",a.y);l.setAttribute('x2',b.x);l.setAttribute('y2',b.y);\nconst s"
	    "us=s[2]>=0&&suspect(net,s[1]);l.setAttribute('stroke',sus?'#000'"
	    ":s[4]*2>s[3]?'#d22':'#8a8');\nl.setAttribute('stroke-width',1+Mat"
	    "h.log2(1+s[3]));if(sus){l.setAttribute('stroke-dasharray','6 3')"
	    ";l.setAttribute('class','suspect');}\nconst t=document.createElem"
	    "entNS(NS,'title');t.textContent=s[0]+' \\u2192 '+s[1]+': '+s[3]+'"
	    " flows, '+s[4]+' lost packets';l.appendChild(t);sv.appendChild(l"
	    ");}\nfor(const p of Object.values(pos)){const t=document.createEl"
	    "ementNS(NS,'text');t.setAttribute('x',p.x);t.setAttribute('y',p."
	    "y+4);t.textContent=p.n;sv.appendChild(t);}\nconst d=document.crea"
	    "teElement('div');const h=document.createElement('h3');h.textCont"
	    "ent=net+' network as traced';d.appendChild(h);d.appendChild(sv);"
	    "return d;}\nfunction meta(){const m=D.measured||{},o=m.options||{"
	    "},out=[];\nout.push('run '+D.run);if(m.started)out.push('measured"
	    " '+m.started.replace('T',' ').replace('Z',' UTC'));\nif(typeof m."
	    "seconds==='number')out.push('took '+(m.seconds<120?m.seconds+' s"
	    "':Math.round(m.seconds/60)+' min'));\nout.push('inventory '+D.inv"
	    "entory);out.push('profile '+D.profile+' (floor '+D.floor_gbps+' "
	    "Gbit/s)');\nout.push('cephfab '+(E.version||'?'));document.getEle"
	    "mentById('meta').textContent=out.join(' \\u00b7 ');\nconst op=Obje"
	    "ct.entries(o).map(([k,v])=>k+' '+(Array.isArray(v)?v.join(','):v"
	    "));\ndocument.getElementById('opts').textContent=op.length?'optio"
	    "ns: '+op.join(', '):'';}\nfunction init(){const v=document.getEle"
	    "mentById('verdict');v.textContent='verdict: '+D.verdict;v.classN"
	    "ame='verdict v-'+D.verdict;meta();\nconst m=document.getElementBy"
	    "Id('metrics');for(const k of measured){const b=document.createEl"
	    "ement('button');b.textContent=M[k];b.dataset.m=k;b.onclick=()=>{"
	    "metric=k;draw();};m.appendChild(b);}\nif(!measured.length)m.textC"
	    "ontent='nothing measured to draw';\ndraw();const ol=document.getE"
	    "lementById('findings');const rank=f=>f.severity!=='error'?2:f.lo"
	    "cation&&f.location.scope==='pair'?1:0;\nfor(const f of [...D.find"
	    "ings].sort((a,b)=>rank(a)-rank(b))){const li=document.createElem"
	    "ent('li');li.className='finding f-'+f.severity;\nli.textContent=f"
	    ".severity+' '+f.kind+': '+f.summary+' \\u2014 '+f.hint;\nli.onmous"
	    "eover=()=>{document.querySelectorAll('td.hl').forEach(e=>e.class"
	    "List.remove('hl'));const [a,b]=f.hosts;\nconst ids=f.evidence&&f."
	    "evidence.pairs?f.evidence.pairs.map(p=>'c-'+f.network+'-'+p.repl"
	    "ace('->','-')):['c-'+f.network+'-'+a+'-'+b,'c-'+f.network+'-'+b+"
	    "'-'+a];\nfor(const id of ids){const e=document.getElementById(id)"
	    ";if(e)e.classList.add('hl');}};ol.appendChild(li);}\nif(!D.findin"
	    "gs.length){const li=document.createElement('li');li.textContent="
	    "'no findings';ol.appendChild(li);}\nconst tt=document.getElementB"
	    "yId('topology');const hr=tt.insertRow();for(const x of ['host','"
	    "public','cluster','FRR']){const th=document.createElement('th');"
	    "th.textContent=x;hr.appendChild(th);}\nfor(const t of (D.topology"
	    "||[])){const tr=tt.insertRow();for(const x of [t.host,(t.public|"
	    "|{}).text||'',(t.cluster||{}).text||'',(t.frr||{}).text||''])tr."
	    "insertCell().textContent=x;}\nif(!(D.topology||[]).length){tt.inn"
	    "erHTML='';tt.insertRow().insertCell().textContent='no facts (run"
	    " with --tests facts)';}}\ninit();\n";

/* inline_json writes a JSON document into the script, '</' split so that
 * the data cannot end the script element. */
static void
inline_json(FILE *f, const char *json)
{
	const char *p;

	for (p = json ? json : "{}"; *p; p++) {
		if (p[0] == '<' && p[1] == '/')
			fputs("<\\", f);
		else
			fputc(*p, f);
	}
}

int
report_html(const cJSON *doc, const char *path, char *err)
{
	struct out_file of;
	cJSON *env = envelope_json();
	char *json, *ej;

	if (out_file_open(&of, path, err) == -1) {
		cJSON_Delete(env);
		return -1;
	}
	json = cJSON_PrintUnformatted(doc);
	ej = env ? cJSON_PrintUnformatted(env) : NULL;
	cJSON_Delete(env);
	fputs(html_head, of.f);
	fputs("const D=", of.f);
	inline_json(of.f, json);
	fputs(";\nconst E=", of.f);
	inline_json(of.f, ej);
	fputs(";\n", of.f);
	fputs(html_script, of.f);
	fputs("\n</script></body></html>\n", of.f);
	free(json);
	free(ej);
	return out_file_close(&of, err);
}
