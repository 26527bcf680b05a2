/// The console's only stylesheet, compiled into the binary and served from `/console/assets/`
/// (the Content-Security-Policy allows no inline style). Fluid widths: no horizontal scrolling from
/// 375 px up; tables scroll inside their own box on a narrow screen.
enum ConsoleStylesheet {
    static let path = "assets/console.css"

    static let css = """
        *{box-sizing:border-box}
        html{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;font-size:16px;color:#1b1f23;background:#f6f7f9}
        body{margin:0}
        a{color:#0b57d0}
        a:focus,button:focus,input:focus,select:focus{outline:3px solid #f4b400;outline-offset:2px}
        header{background:#1b2a41;color:#fff;padding:.5rem 1rem;display:flex;flex-wrap:wrap;align-items:center;gap:.5rem 1rem}
        header .brand{font-weight:700;margin-right:auto}
        header .who{font-size:.875rem;opacity:.85}
        nav ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:.25rem}
        nav a{display:block;color:#fff;text-decoration:none;padding:.375rem .625rem;border-radius:4px}
        nav a[aria-current=page]{background:#3b5b8c}
        nav form{margin:0}
        nav button{background:none;border:1px solid #8aa2c8;color:#fff;padding:.3rem .6rem;border-radius:4px;font:inherit;cursor:pointer}
        main{max-width:72rem;margin:0 auto;padding:1rem}
        h1{font-size:1.5rem;margin:.5rem 0 1rem;overflow-wrap:anywhere}
        p,.notice{overflow-wrap:anywhere}
        td,th{overflow-wrap:break-word}
        label{display:block;font-weight:600;margin:.75rem 0 .25rem}
        input[type=text],input[type=password],input[type=search],input[type=date],input[type=email],input[type=tel],select{width:100%;max-width:24rem;padding:.5rem;font:inherit;border:1px solid #8c959f;border-radius:4px}
        button,.button{background:#0b57d0;color:#fff;border:0;border-radius:4px;padding:.5rem 1rem;font:inherit;cursor:pointer}
        button.danger{background:#b3261e}
        .search{display:flex;flex-wrap:wrap;gap:.5rem;align-items:flex-end}
        .search label{margin:0 0 .25rem}
        .notice{padding:.75rem;border-radius:4px;background:#fff4e5;border:1px solid #f4b400;margin:.75rem 0}
        .error{background:#fdecea;border-color:#b3261e}
        .table{overflow-x:auto;max-width:100%}
        table{border-collapse:collapse;width:100%;background:#fff}
        th,td{text-align:left;padding:.5rem;border-bottom:1px solid #d0d7de;vertical-align:top}
        th{font-size:.875rem;color:#57606a}
        .mono{font-family:ui-monospace,SFMono-Regular,Menlo,monospace;overflow-wrap:anywhere}
        .number{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
        .pair{display:grid;gap:1rem;align-items:start;margin-bottom:1.5rem}
        @media(min-width:60rem){.pair{grid-template-columns:3fr 2fr}}
        .chart{display:block;width:100%;max-width:100%;height:auto;background:#fff;border:1px solid #d0d7de;border-radius:4px}
        td form{margin:0}
        .signin{max-width:24rem;margin:3rem auto;background:#fff;padding:1.5rem;border-radius:8px;border:1px solid #d0d7de}
        .visually-hidden{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
        td a.mono{white-space:nowrap;overflow-wrap:normal}
        nav.paging{display:flex;gap:.5rem;margin:1rem 0}
        nav.paging a{color:#0b57d0;background:#fff;border:1px solid #0b57d0}
        label.inline{display:inline;font-weight:400;margin:0}
        fieldset{border:1px solid #d0d7de;border-radius:4px;margin:1rem 0;padding:.5rem 1rem}
        .skip:focus{position:static;width:auto;height:auto;clip:auto;background:#fff;color:#0b57d0;padding:.5rem}
        textarea{width:100%;max-width:24rem;padding:.5rem;font:inherit;border:1px solid #8c959f;border-radius:4px}
        textarea:focus,a.button:focus{outline:3px solid #f4b400;outline-offset:2px}
        a.button{display:inline-block;text-decoration:none}
        .fields{display:grid;gap:0 1rem;grid-template-columns:repeat(auto-fill,minmax(16rem,1fr))}
        .hint{display:block;font-weight:400;font-size:.8125rem;color:#57606a}
        .field-error{color:#b3261e;font-weight:600;margin:.25rem 0 0;overflow-wrap:anywhere}
        [aria-invalid=true]{border-color:#b3261e;border-width:2px}
        label.inline{display:inline;font-weight:400}
        .actions{display:flex;flex-wrap:wrap;gap:.5rem}
        .actions form{margin:0}
        .timeline{list-style:none;padding:0;margin:0}
        .timeline .step{background:#fff;border:1px solid #d0d7de;border-left:4px solid #8c959f;border-radius:4px;padding:.25rem .75rem;margin:0 0 .5rem}
        .timeline .step-approved{border-left-color:#1a7f37}
        .timeline .step-failed,.timeline .step-needs_review{border-left-color:#b3261e}
        .timeline .step-retry_pending,.timeline .step-processing{border-left-color:#f4b400}
        .attempts{margin:.25rem 0 .5rem;padding-left:1.25rem;overflow-wrap:anywhere}
        .calendars{display:grid;gap:1rem;grid-template-columns:repeat(auto-fill,minmax(19rem,1fr));margin:1rem 0}
        .nowrap{white-space:nowrap}
        table.calendar{table-layout:fixed;border:1px solid #d0d7de}
        .calendar caption{font-weight:700;text-align:left;padding:.25rem 0}
        .calendar th,.calendar td{padding:.2rem;text-align:center;font-size:.8125rem;border-bottom:1px solid #eaeef2}
        .calendar abbr{text-decoration:none}
        .calendar td.due{background:#0b57d0;color:#fff;font-weight:700}
        .calendar .day{display:block}
        .calendar .due-amount{display:block;font-size:.625rem;font-weight:400;overflow-wrap:anywhere}
        .queue{list-style:none;padding:0;margin:0}
        .queue>li{background:#fff;border:1px solid #d0d7de;border-left:4px solid #b3261e;border-radius:4px;padding:.5rem .75rem;margin:0 0 .75rem}
        .item-title{font-size:1rem;margin:.25rem 0;overflow-wrap:anywhere}
        .facts{display:grid;grid-template-columns:repeat(auto-fill,minmax(11rem,1fr));gap:.5rem 1rem;margin:.5rem 0}
        .facts dt{font-size:.8125rem;color:#57606a;font-weight:600}
        .facts dd{margin:0;overflow-wrap:anywhere}
        .resolve{display:flex;flex-wrap:wrap;gap:.5rem 1rem;align-items:flex-end;margin:.5rem 0}
        .resolve label{margin:0 0 .25rem}
        """
}
