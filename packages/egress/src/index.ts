export { chooseEgress, type Egress, EgressRefused, type EgressSettings, poolOf } from "./choose.ts";
