// Generated from ../entries/links-and-title.ts by `npm run build:injected -w @browserfleet/browser`. Do not edit.
import type run from "../entries/links-and-title.ts";
import { inPage } from "../in-page.ts";

export default inPage<typeof run>("links-and-title", "(...a)=>{var __bfEntry=(()=>{var i=Object.defineProperty;var a=Object.getOwnPropertyDescriptor;var m=Object.getOwnPropertyNames;var s=Object.prototype.hasOwnProperty;var c=(t,e)=>{for(var n in e)i(t,n,{get:e[n],enumerable:!0})},d=(t,e,n,l)=>{if(e&&typeof e==\"object\"||typeof e==\"function\")for(let r of m(e))!s.call(t,r)&&r!==n&&i(t,r,{get:()=>e[r],enumerable:!(l=a(e,r))||l.enumerable});return t};var f=t=>d(i({},\"__esModule\",{value:!0}),t);var A={};c(A,{default:()=>u});function o(t){return{links:Array.from(document.querySelectorAll(\"a[href]\"),e=>e.href).slice(0,t),title:document.title}}var u=o;return f(A);})();return __bfEntry.default(...a)}");
