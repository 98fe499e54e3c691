import Reports
/// The console's stylesheet and script, served by the server itself (`/ui/assets/…`): the pages ask
/// nothing of any other origin (the Content-Security-Policy says so to the browser), use the system's
/// fonts, and work without the script except where a page must react (playing, the live tail).
enum ConsoleAssets {
    static let stylesheet = """
        :root{--ink:#1d2330;--muted:#4f5869;--line:#d8dce4;--accent:#1f5fbf;--bad:#b3261e;--good:#17703a}
        *{box-sizing:border-box}body{font:15px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:var(--ink);background:#fff}
        a{color:var(--accent)}a:focus-visible,button:focus-visible,input:focus-visible,select:focus-visible,[tabindex]:focus-visible{outline:3px solid #f2b705;outline-offset:2px}
        .skip{position:absolute;left:-999px}.skip:focus{left:.5rem;top:.5rem;background:#fff;padding:.3rem .6rem;z-index:2}
        .bar{display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1.2rem;padding:.6rem 1.2rem;background:#17213a;color:#fff}
        .bar a{color:#fff;text-decoration:none}.bar nav a{padding:.2rem .4rem;border-radius:3px}.bar nav a[aria-current=page]{background:#31456f}
        .brand{font-weight:700}.logout{margin-left:auto;display:flex;gap:.5rem;align-items:center}.actor{color:#cdd6ea;font-size:.85rem}
        main{padding:0 1.2rem 2rem;max-width:90rem}h1{font-size:1.35rem;margin:1rem 0 .6rem}h2{font-size:1.1rem;margin:1.2rem 0 .4rem}
        code,.hash,.id{font-family:ui-monospace,monospace;font-size:.86em}button{font:inherit;padding:.3rem .8rem;border:1px solid #5a6375;border-radius:4px;background:#f3f5f9;color:var(--ink);cursor:pointer}
        input,select{font:inherit;padding:.25rem .4rem;border:1px solid #6b7486;border-radius:4px;max-width:100%}
        .stacked{display:grid;gap:.4rem;max-width:32rem}.inline{display:flex;flex-wrap:wrap;gap:.5rem;align-items:end}
        .filters{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:end;margin-bottom:.5rem}.filters label{display:grid;font-size:.85rem;color:var(--muted)}
        .hint{color:var(--muted);font-size:.85rem;margin:.2rem 0;flex-basis:100%}.count{color:var(--muted)}
        .table-scroll{overflow-x:auto}table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:.3rem .5rem;border-bottom:1px solid #e4e7ee;vertical-align:top}
        thead th{font-size:.85rem;color:var(--muted);white-space:nowrap}.number{text-align:right;font-variant-numeric:tabular-nums}
        .status{font-size:.8rem;padding:.05rem .4rem;border-radius:3px;background:#e9edf5}.status-active{background:#dcefe2}.status-erased,.status-purged{background:#f6e0de}
        .tag{font-size:.8rem;color:var(--muted)}.bad{color:var(--bad);font-weight:600}.good{color:var(--good)}
        .error{background:#fbe9e7;border-left:4px solid var(--bad);padding:.5rem .8rem}.notice{background:#fff4e5;border-left:4px solid #b26a00;padding:.5rem .8rem}
        .danger{color:var(--bad)}button.danger{border-color:var(--bad);background:#fbe9e7}
        .facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:0}.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
        .session-grid{display:grid;grid-template-columns:minmax(0,3fr) minmax(16rem,2fr);gap:1.5rem;align-items:start}
        .transcript li.playing{background:#fff1b8}.pages{margin-top:.8rem;display:flex;gap:1rem}
        .plain{list-style:none;padding:0}.plain li{margin:.2rem 0}pre.note{background:#f5f6f9;padding:.6rem;overflow-x:auto;font-size:.85rem}
        h3{font-size:1rem;margin:1rem 0 .3rem}.verdict{font-size:1.05rem}
        .w.substitute{background:#ffe2a8}.w.delete{background:#f6c9c5;text-decoration:line-through}.w.insert{background:#cfe8d6}
        @media (max-width:900px){.session-grid{grid-template-columns:1fr}main{padding:0 .7rem 2rem}}
        @media (max-width:640px){table.sessions thead{display:none}table.sessions tr{display:grid;grid-template-columns:1fr 1fr;border-bottom:1px solid var(--line);padding:.3rem 0}table.sessions td{border:0;padding:.1rem .3rem}table.sessions td.number{text-align:left}}
        """ + TrendChart.style

    /// Plays the recording from a clicked segment, marks the segment being played, and fills the live
    /// table from the server's event stream.
    static let script = """
        (function(){
        "use strict";
        var audio=document.getElementById("recording");
        if(audio){
          var items=[].slice.call(document.querySelectorAll(".transcript li[data-from-ms]"));
          document.addEventListener("click",function(e){
            var t=e.target.closest&&e.target.closest("[data-start-ms]");if(!t)return;
            e.preventDefault();audio.currentTime=Number(t.getAttribute("data-start-ms"))/1000;
            var p=audio.play();if(p&&p.catch)p.catch(function(){});
          });
          audio.addEventListener("timeupdate",function(){
            var ms=audio.currentTime*1000,current=null;
            items.forEach(function(li){
              var on=ms>=Number(li.getAttribute("data-from-ms"))&&ms<Number(li.getAttribute("data-to-ms"));
              li.classList.toggle("playing",on);if(on)current=li;
              if(on)li.setAttribute("aria-current","true");else li.removeAttribute("aria-current");
            });
            document.body.setAttribute("data-playing-segment",current?current.id:"");
          });
        }
        var live=document.getElementById("live-events");
        if(live&&window.EventSource){
          var state=document.getElementById("live-state");
          var source=new EventSource("/v1/events?after="+encodeURIComponent(live.getAttribute("data-after")));
          source.onopen=function(){state.textContent="connected";};
          source.onerror=function(){state.textContent="reconnecting…";};
          var show=function(m){
            var e;try{e=JSON.parse(m.data);}catch(x){return;}
            var row=document.createElement("tr");
            [m.lastEventId,e.type,e.session||"",e.occurred_at||""].forEach(function(text,i){
              var cell=document.createElement("td");
              if(i===2&&text){var a=document.createElement("a");a.href="/ui/sessions/"+text;a.textContent=text;a.className="id";cell.appendChild(a);}
              else{cell.textContent=text;}
              row.appendChild(cell);
            });
            live.insertBefore(row,live.firstChild);
            while(live.rows.length>200)live.deleteRow(live.rows.length-1);
          };
          live.getAttribute("data-types").split(" ").forEach(function(type){source.addEventListener(type,show);});
        }
        })();
        """
}
