/*
 * flamegraph_page.h - the fixed parts of the HTML flame graph page (style and script),
 * written around the data by flamegraph.c. Self-contained: no external resources.
 *
 * The view: an icicle (root on top, so the first screen shows it at any window size) with
 * a switch to the classic flame (root at the bottom); frames of one method that differ
 * only in frame type are one box, coloured by its dominant type, the tooltip giving the
 * breakdown. Labels keep the method name: package parts are dropped from the left first.
 *
 * Data layout written by flamegraph.c:
 *   N = [names], T = [colour class per name], D = [frame, total, self, nchildren, ...]
 *   (the tree in preorder; the root has frame -1).
 */
#ifndef ASGSTPROF_FLAMEGRAPH_PAGE_H
#define ASGSTPROF_FLAMEGRAPH_PAGE_H

static const char prof_page_head[] =
"<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>%s</title>\n<style>\n"
"body{font:12px sans-serif;margin:0;padding:8px;background:#fff}\n"
"#bar{display:flex;gap:8px;align-items:center;margin-bottom:6px;flex-wrap:wrap}\n"
"#bar input{width:260px}\n.lg{display:inline-block;width:12px;height:12px;"
"vertical-align:middle;margin:0 3px 0 8px}\n"
"#tip{position:fixed;display:none;background:#ffe;border:1px solid #999;padding:4px;"
"pointer-events:none;white-space:pre}\ncanvas{display:block}\n"
"#info{margin-top:6px;color:#333}\n</style></head><body>\n"
"<div id=\"bar\"><b>%s</b><input id=\"q\" placeholder=\"search (regex)\">"
"<button id=\"reset\">reset zoom</button><button id=\"mode\"></button><span id=\"match\"></span><span id=\"legend\"></span></div>\n"
"<canvas id=\"c\"></canvas><div id=\"info\"></div><div id=\"tip\"></div>\n<script>\n";

static const char prof_page_tail[] =
"var KIND=['interpreted','C1','C2','inlined','native','C','other','kernel'];\n"
"var COL=['#7cc47c','#e8c84e','#62b0e0','#9ad8ee','#e8965c','#e07070','#c0c0c0','#c8a0e0'];\n"
"var H=16,c=document.getElementById('c'),g=c.getContext('2d'),tip=document.getElementById('tip');\n"
"var icicle=true;\n"
/* One node per (parent, name): the frame types of one method are merged, their counts
 * kept in ty for the colour (the dominant type) and the tooltip. */
"function build(){var i=0;function key(n){return n.f<0?'':N[n.f];}\n"
"function add(p,ch){var o=p.m[key(ch)];if(o){merge(o,ch);return;}ch.p=p;p.m[key(ch)]=ch;p.k.push(ch);}\n"
"function merge(a,b){a.t+=b.t;a.s+=b.s;for(var y in b.ty)a.ty[y]=(a.ty[y]||0)+b.ty[y];"
"for(var j=0;j<b.k.length;j++)add(a,b.k[j]);}\n"
"function rec(){var n={f:D[i],t:D[i+1],s:D[i+2],k:[],m:{},ty:{}};if(n.f>=0)n.ty[T[n.f]]=n.t;"
"var m=D[i+3];i+=4;for(var j=0;j<m;j++)add(n,rec());return n;}\n"
"function fin(n,d){n.d=d;var md=d,best=-1;for(var y in n.ty)if(best<0||n.ty[y]>n.ty[best])best=+y;n.c=best;"
"n.k.sort(function(a,b){return key(a)<key(b)?-1:key(a)>key(b)?1:0;});"
"for(var j=0;j<n.k.length;j++)md=Math.max(md,fin(n.k[j],d+1));return md;}\n"
"var r=rec();r.maxd=fin(r,0);return r;}\n"
"var root=build(),zoom=root,re=null,boxes=[];\n"
"var lg='';for(var k=0;k<KIND.length;k++)lg+='<span class=\"lg\" style=\"background:'+COL[k]+'\"></span>'+KIND[k];\n"
"document.getElementById('legend').innerHTML=lg;\n"
"function name(n){return n.f<0?'all':N[n.f];}\n"
/* With event roots (EV), a frame's share is of its event's samples: cpu samples and
 * tracepoint hits are not parts of one whole. */
"function base(n){if(!EV||n.d<1)return root;while(n.d>1)n=n.p;return n;}\n"
"function share(n){var b=base(n);return (100*n.t/b.t).toFixed(2)+'%'+(b===root?'':' of '+name(b));}\n"
/* A label that does not fit loses package (or C++ namespace) parts from the left first,
 * so the class and method stay readable; only then is the method itself cut. */
"function fit(s,w){var mx=Math.floor((w-6)/6.2);if(s.length<=mx)return s;if(mx<3)return '';"
"for(var i=0;i<s.length;i++){var cut=s[i]=='.'?i+1:s.substr(i,2)=='::'?i+2:-1;"
"if(cut>0&&s.length-cut+2<=mx)return '..'+s.substring(cut);}"
"var t=s.substring(Math.max(s.lastIndexOf('.'),s.lastIndexOf(':'))+1);return t.substring(0,mx-2)+'..';}\n"
"function types(n){var a=[];for(var y=0;y<KIND.length;y++)if(n.ty[y])a.push(KIND[y]+' '+n.ty[y]);return a.join(', ');}\n"
"function draw(){var W=Math.max(200,document.body.clientWidth-16);c.width=W;c.height=(root.maxd+1)*H;"
"g.font='11px sans-serif';g.textBaseline='middle';boxes=[];var tot=zoom.t,hit=0;"
"function box(n,x,w){var y=icicle?n.d*H:c.height-(n.d+1)*H;var m=re&&n.f>=0&&re.test(N[n.f]);"
"g.fillStyle=m?'#e040e0':(n.f<0?'#d0d0d0':COL[n.c]);g.fillRect(x,y,w-1,H-1);"
"if(w>20){g.fillStyle='#000';g.fillText(fit(name(n),w),x+3,y+H/2);}boxes.push([x,y,w,n]);return m;}\n"
"function rec(n,x,w,counted){var m=box(n,x,w);if(m&&!counted){hit+=n.t;counted=true;}var cx=x;"
"for(var j=0;j<n.k.length;j++){var ch=n.k[j],cw=w*ch.t/n.t;if(cw>=0.5)rec(ch,cx,cw,counted);cx+=cw;}}\n"
"for(var a=zoom.p,path=[];a;a=a.p)path.push(a);for(var j=0;j<path.length;j++)box(path[j],0,W);"
"rec(zoom,0,W,false);document.getElementById('match').textContent=re?('matched '+(100*hit/tot).toFixed(2)+'%'):'';"
"document.getElementById('info').textContent=root.t+' samples; zoomed to '+name(zoom)+' ('+zoom.t+')';"
"document.getElementById('mode').textContent=icicle?'flame view (root at bottom)':'icicle view (root on top)';}\n"
"function at(e){var r=c.getBoundingClientRect(),x=e.clientX-r.left,y=e.clientY-r.top;"
"for(var i=boxes.length-1;i>=0;i--){var b=boxes[i];if(x>=b[0]&&x<b[0]+b[2]&&y>=b[1]&&y<b[1]+H)return b[3];}return null;}\n"
"c.onclick=function(e){var n=at(e);if(n){zoom=n;draw();}};\n"
"c.onmousemove=function(e){var n=at(e);if(!n){tip.style.display='none';return;}"
"tip.textContent=name(n)+'\\n'+(n.f<0?'':types(n)+'\\n')+n.t+' samples ('+share(n)+'), self '+n.s;"
"tip.style.display='block';var tw=tip.offsetWidth||0,th=tip.offsetHeight||0,iw=window.innerWidth||9999,ih=window.innerHeight||9999;"
"tip.style.left=Math.max(0,Math.min(e.clientX+12,iw-tw-4))+'px';"
"tip.style.top=Math.max(0,e.clientY+12+th>ih?e.clientY-th-8:e.clientY+12)+'px';};\n"
"c.onmouseout=function(){tip.style.display='none';};\n"
"document.getElementById('reset').onclick=function(){zoom=root;draw();};\n"
"document.getElementById('mode').onclick=function(){icicle=!icicle;draw();"
"if(!icicle&&window.scrollTo)window.scrollTo(0,document.body.scrollHeight);};\n"
"document.getElementById('q').oninput=function(){var v=this.value;try{re=v?new RegExp(v):null;}catch(x){re=null;}draw();};\n"
"window.onresize=draw;draw();\n</script></body></html>\n";

#endif
