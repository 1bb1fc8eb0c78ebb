// Generated from ../entries/select-options.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/select-options.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("select-options", "(...a)=>{var __bfEntry=(()=>{var a=Object.defineProperty;var i=Object.getOwnPropertyDescriptor;var o=Object.getOwnPropertyNames;var s=Object.prototype.hasOwnProperty;var c=(l,e)=>{for(var t in e)a(l,t,{get:e[t],enumerable:!0})},f=(l,e,t,r)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let n of o(e))!s.call(l,n)&&n!==t&&a(l,n,{get:()=>e[n],enumerable:!(r=i(e,n))||r.enumerable});return l};var m=l=>f(a({},\"__esModule\",{value:!0}),l);var p={};c(p,{default:()=>u});function u(l){return l instanceof HTMLSelectElement?Array.from(l.options).map(e=>[e.value,e.label]):null}return m(p);})();return __bfEntry.default(...a)}");
