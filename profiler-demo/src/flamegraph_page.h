/*
 * flamegraph_page.h - the fixed parts of the HTML flame graph page (style and script),
 * written around the data by flamegraph.c. Self-contained: no external resources.
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
"<button id=\"reset\">reset zoom</button><span id=\"match\"></span><span id=\"legend\"></span></div>\n"
"<canvas id=\"c\"></canvas><div id=\"info\"></div><div id=\"tip\"></div>\n<script>\n";

static const char prof_page_tail[] =
"var KIND=['interpreted','C1','C2','inlined','native','C','other'];\n"
"var COL=['#7cc47c','#e8c84e','#62b0e0','#9ad8ee','#e8965c','#e07070','#c0c0c0'];\n"
"var H=16,c=document.getElementById('c'),g=c.getContext('2d'),tip=document.getElementById('tip');\n"
"function build(){var i=0,maxd=0;function rec(d){var n={f:D[i],t:D[i+1],s:D[i+2],k:[],d:d};"
"var m=D[i+3];i+=4;if(d>maxd)maxd=d;for(var j=0;j<m;j++){var ch=rec(d+1);ch.p=n;n.k.push(ch);}"
"n.k.sort(function(a,b){return a.f<0||b.f<0?0:(N[a.f]<N[b.f]?-1:N[a.f]>N[b.f]?1:0);});return n;}"
"var r=rec(0);r.maxd=maxd;return r;}\n"
"var root=build(),zoom=root,re=null,boxes=[];\n"
"var lg='';for(var k=0;k<KIND.length;k++)lg+='<span class=\"lg\" style=\"background:'+COL[k]+'\"></span>'+KIND[k];\n"
"document.getElementById('legend').innerHTML=lg;\n"
"function name(n){return n.f<0?'all':N[n.f];}\n"
"function inZoomPath(n){for(var z=zoom;z;z=z.p)if(z===n)return true;return false;}\n"
"function draw(){var W=document.body.clientWidth-16;c.width=W;c.height=(root.maxd+1)*H;"
"g.font='11px sans-serif';g.textBaseline='middle';boxes=[];var tot=zoom.t,hit=0;"
"function box(n,x,w){var y=c.height-(n.d+1)*H;var m=re&&n.f>=0&&re.test(N[n.f]);"
"g.fillStyle=m?'#e040e0':(n.f<0?'#d0d0d0':COL[T[n.f]]);g.fillRect(x,y,w-1,H-1);"
"if(w>30){g.fillStyle='#000';var s=name(n),mx=Math.floor((w-6)/6.2);if(s.length>mx)s=s.substring(0,Math.max(0,mx-2))+'..';"
"g.fillText(s,x+3,y+H/2);}boxes.push([x,y,w,n]);return m;}\n"
"function rec(n,x,w,counted){var m=box(n,x,w);if(m&&!counted){hit+=n.t;counted=true;}var cx=x;"
"for(var j=0;j<n.k.length;j++){var ch=n.k[j],cw=w*ch.t/n.t;if(cw>=0.5)rec(ch,cx,cw,counted);cx+=cw;}}\n"
"for(var a=zoom.p,path=[];a;a=a.p)path.push(a);for(var j=0;j<path.length;j++)box(path[j],0,W);"
"rec(zoom,0,W,false);document.getElementById('match').textContent=re?('matched '+(100*hit/tot).toFixed(2)+'%'):'';"
"document.getElementById('info').textContent=root.t+' samples; zoomed to '+name(zoom)+' ('+zoom.t+')';}\n"
"function at(e){var r=c.getBoundingClientRect(),x=e.clientX-r.left,y=e.clientY-r.top;"
"for(var i=boxes.length-1;i>=0;i--){var b=boxes[i];if(x>=b[0]&&x<b[0]+b[2]&&y>=b[1]&&y<b[1]+H)return b[3];}return null;}\n"
"c.onclick=function(e){var n=at(e);if(n){zoom=n;draw();}};\n"
"c.onmousemove=function(e){var n=at(e);if(!n){tip.style.display='none';return;}"
"tip.textContent=name(n)+'\\n'+(n.f<0?'':KIND[T[n.f]]+', ')+n.t+' samples ('+(100*n.t/root.t).toFixed(2)+'%), self '+n.s;"
"tip.style.display='block';tip.style.left=(e.clientX+12)+'px';tip.style.top=(e.clientY+12)+'px';};\n"
"c.onmouseout=function(){tip.style.display='none';};\n"
"document.getElementById('reset').onclick=function(){zoom=root;draw();};\n"
"document.getElementById('q').oninput=function(){var v=this.value;try{re=v?new RegExp(v):null;}catch(x){re=null;}draw();};\n"
"window.onresize=draw;draw();\n</script></body></html>\n";

#endif
