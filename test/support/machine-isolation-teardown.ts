import { removeMachineRoot } from './machine-isolation';

export default removeMachineRoot;
